import { formatNumber } from '../../lib/format';

/** The options whose free No shares a conversion gives, each with how many are free. */
export function GivenOptions({
  convertible,
  givenIds,
  onGiven,
}: {
  convertible: { optionId: string; label: string; free: number }[];
  givenIds: string[];
  onGiven: (optionIds: string[]) => void;
}) {
  return (
    <fieldset className="convert-options">
      <legend>Give the No shares of</legend>
      {convertible.map((option) => (
        <label key={option.optionId} className="check">
          <input
            type="checkbox"
            checked={givenIds.includes(option.optionId)}
            onChange={(event) =>
              onGiven(
                event.target.checked
                  ? [...givenIds, option.optionId]
                  : givenIds.filter((id) => id !== option.optionId),
              )
            }
          />
          {option.label} <span className="muted small">({formatNumber(option.free)} No free)</span>
        </label>
      ))}
    </fieldset>
  );
}

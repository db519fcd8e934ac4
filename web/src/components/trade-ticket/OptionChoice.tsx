import type { MarketDetail } from '../../api/types';
import { formatChances } from '../../lib/format';

/** The option traded, when the market has more than one: with its chance when exactly one option wins. */
export function OptionChoice({
  id,
  market,
  optionId,
  onChoose,
}: {
  id: string;
  market: MarketDetail;
  optionId: string;
  onChoose: (optionId: string) => void;
}) {
  if (market.options.length <= 1) return null;
  const chances = formatChances(market.options.map((candidate) => candidate.probabilityBps));
  return (
    <div className="field">
      <label htmlFor={id}>Option</label>
      <select id={id} value={optionId} onChange={(event) => onChoose(event.target.value)}>
        {market.options.map((candidate, index) => (
          <option key={candidate.id} value={candidate.id}>
            {market.exclusive ? `${candidate.label} · ${chances[index]}` : candidate.label}
          </option>
        ))}
      </select>
    </div>
  );
}

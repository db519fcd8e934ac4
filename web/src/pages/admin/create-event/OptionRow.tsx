import type { OptionDraft } from './event-draft';

/** One option of the new event: its label, and its starting chance (exclusive) or its maker's liquidity. */
export function OptionRow({
  index,
  option,
  exclusive,
  removable,
  onChange,
  onRemove,
}: {
  index: number;
  option: OptionDraft;
  exclusive: boolean;
  removable: boolean;
  onChange: (change: Partial<OptionDraft>) => void;
  onRemove: () => void;
}) {
  const number = index + 1;
  return (
    <div className="field-row">
      <div className="field">
        <label htmlFor={`option-label-${index}`}>Option {number} label</label>
        <input
          id={`option-label-${index}`}
          value={option.label}
          maxLength={120}
          onChange={(e) => onChange({ label: e.target.value })}
        />
      </div>
      {exclusive ? (
        <div className="field">
          <label htmlFor={`option-chance-${index}`}>Option {number} starting chance (%)</label>
          <input
            id={`option-chance-${index}`}
            inputMode="numeric"
            value={option.chance}
            placeholder="even"
            onChange={(e) => onChange({ chance: e.target.value })}
          />
        </div>
      ) : (
        <div className="field">
          <label htmlFor={`option-liquidity-${index}`}>Option {number} liquidity (credits)</label>
          <input
            id={`option-liquidity-${index}`}
            inputMode="decimal"
            value={option.liquidity}
            onChange={(e) => onChange({ liquidity: e.target.value })}
          />
        </div>
      )}
      {removable ? (
        <button type="button" className="button small ghost" onClick={onRemove}>
          Remove<span className="visually-hidden"> option {number}</span>
        </button>
      ) : null}
    </div>
  );
}

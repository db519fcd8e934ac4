import type { MarketDetail, OptionDetail } from '../../../api/types';
import { ErrorMessage } from '../../../components/Status';
import { useDraftOption } from './useDraftOption';

/** A draft's option: its label, house liquidity and starting price, editable until the event opens. */
export function DraftOption({
  event,
  option,
  onSaved,
}: {
  event: MarketDetail;
  option: OptionDetail;
  onSaved: (e: MarketDetail) => void;
}) {
  const form = useDraftOption(event, option, onSaved);
  const id = `draft-option-${option.id}`;
  return (
    <form className="field-row" onSubmit={form.submit} aria-label={`Option ${option.label}`}>
      <div className="field">
        <label htmlFor={`${id}-label`}>Label</label>
        <input
          id={`${id}-label`}
          value={form.label}
          maxLength={120}
          onChange={(e) => form.setLabel(e.target.value)}
        />
      </div>
      {event.exclusive ? null : (
        <div className="field">
          <label htmlFor={`${id}-liquidity`}>House liquidity of {option.label} (credits)</label>
          <input
            id={`${id}-liquidity`}
            inputMode="decimal"
            value={form.liquidity}
            onChange={(e) => form.setLiquidity(e.target.value)}
          />
        </div>
      )}
      <div className="field">
        <label htmlFor={`${id}-price`}>
          {event.exclusive ? `Starting chance of ${option.label} (%)` : 'Starting YES price (¢)'}
        </label>
        <input
          id={`${id}-price`}
          inputMode="numeric"
          value={form.price}
          onChange={(e) => form.setPrice(e.target.value)}
        />
      </div>
      <button type="submit" className="button small" disabled={form.pending}>
        Save<span className="visually-hidden"> option {option.label}</span>
      </button>
      <ErrorMessage error={form.error} />
    </form>
  );
}

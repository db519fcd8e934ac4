import { formatNumber } from '../../lib/format';

/** The shares of each option converted, with a button for the most the holder can. */
export function ConversionQuantity({
  id,
  quantity,
  max,
  onQuantity,
}: {
  id: string;
  quantity: string;
  max: number;
  onQuantity: (quantity: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>Shares of each option</label>
      <div className="inline-input">
        <input
          id={id}
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          value={quantity}
          onChange={(event) => onQuantity(event.target.value)}
        />
        {max > 0 ? (
          <button type="button" className="link-button" onClick={() => onQuantity(String(max))}>
            Max {formatNumber(max)}
          </button>
        ) : null}
      </div>
    </div>
  );
}

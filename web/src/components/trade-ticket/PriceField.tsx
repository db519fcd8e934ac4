import type { Action } from '../../api/types';
import type { Kind } from './order-draft';

function priceLabel(kind: Kind, action: Action): string {
  if (kind === 'limit') return 'Limit price (¢)';
  return action === 'BUY' ? 'Highest price (¢)' : 'Lowest price (¢)';
}

/** The price in cents: the worst a market order accepts, or a limit order's price. */
export function PriceField({
  id,
  hintId,
  kind,
  action,
  price,
  suggested,
  onChange,
}: {
  id: string;
  hintId: string;
  kind: Kind;
  action: Action;
  price: string;
  /** Whether the book suggested the price; without one the field asks for the trader's. */
  suggested: boolean;
  onChange: (price: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{priceLabel(kind, action)}</label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={1}
        max={99}
        step={1}
        required
        value={price}
        placeholder={suggested ? undefined : 'Your price'}
        aria-describedby={hintId}
        onChange={(event) => onChange(event.target.value)}
      />
    </div>
  );
}

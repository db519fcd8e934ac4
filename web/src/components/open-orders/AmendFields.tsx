import { type KeyboardEvent, useId, useState } from 'react';
import { useAction } from '../../lib/hooks';
import { ErrorMessage } from '../Status';
import { type AmendChange, amendOrder, type OrderRow, orderInWords } from './order-actions';

function changeOf(price: string, shares: string): AmendChange | null {
  const priceCents = Number(price);
  const remainingQuantity = Number(shares);
  const whole = (value: number, low: number, high: number) =>
    Number.isInteger(value) && value >= low && value <= high;
  return whole(priceCents, 1, 99) && whole(remainingQuantity, 1, 1_000_000_000)
    ? { priceCents, remainingQuantity }
    : null;
}

/**
 * An order's price and shares left, edited in its row: Enter or Save amends it, Escape or Discard leaves it as it
 * was. The keyboard starts on the price.
 */
export function AmendFields({
  order,
  onAmended,
  onDone,
}: {
  order: OrderRow;
  onAmended: (before: OrderRow, after: OrderRow) => void;
  /** Leaves editing, the order amended or not. */
  onDone: () => void;
}) {
  const id = useId();
  const [price, setPrice] = useState(String(order.priceCents));
  const [shares, setShares] = useState(String(order.remainingQuantity));
  const change = changeOf(price, shares);
  const unchanged =
    change?.priceCents === order.priceCents && change.remainingQuantity === order.remainingQuantity;
  const amend = useAction(async (wanted: AmendChange) => {
    const after = await amendOrder(order, wanted);
    onAmended(order, { ...after, eventTitle: order.eventTitle });
    onDone();
  });
  const save = () => {
    if (!change || amend.pending) return;
    if (unchanged) onDone();
    else void amend.run(change);
  };
  const keys = (event: KeyboardEvent) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      save();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      onDone();
    }
  };
  const words = orderInWords(order);
  return (
    <fieldset className="amend" onKeyDown={keys}>
      <legend className="visually-hidden">Amend order: {words}</legend>
      <div className="amend-fields">
        <label htmlFor={`${id}-price`}>
          Price (¢)
          <input
            id={`${id}-price`}
            type="number"
            inputMode="numeric"
            min={1}
            max={99}
            step={1}
            value={price}
            // biome-ignore lint/a11y/noAutofocus: the row was opened for editing by the keyboard or a click
            autoFocus
            onChange={(event) => setPrice(event.target.value)}
          />
        </label>
        <label htmlFor={`${id}-shares`}>
          Shares left
          <input
            id={`${id}-shares`}
            type="number"
            inputMode="numeric"
            min={1}
            step={1}
            value={shares}
            onChange={(event) => setShares(event.target.value)}
          />
        </label>
      </div>
      <p className="muted small" role="status">
        {!change
          ? 'A whole price from 1¢ to 99¢ and at least 1 share.'
          : change.priceCents === order.priceCents && change.remainingQuantity <= order.remainingQuantity
            ? 'Fewer shares at the same price keep the order’s place in the queue.'
            : 'A new price or more shares replace the order: it goes behind those already at its price.'}
      </p>
      <ErrorMessage error={amend.error} />
      <div className="actions">
        <button type="button" className="button small" disabled={!change || amend.pending} onClick={save}>
          {amend.pending ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="button small ghost" onClick={onDone}>
          Discard
        </button>
      </div>
    </fieldset>
  );
}

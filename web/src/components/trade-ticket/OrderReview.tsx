import type { RefObject } from 'react';
import type { Action, Side } from '../../api/types';
import { formatCredits, formatNumber, formatPrice } from '../../lib/format';
import { type Kind, sideName } from './order-draft';

/** The order in one sentence, to confirm or change before it is sent. */
export function OrderReview({
  id,
  order,
  confirmButton,
  pending,
  onConfirm,
  onChange,
}: {
  id: string;
  order: {
    action: Action;
    kind: Kind;
    side: Side;
    optionLabel: string;
    quantity: number;
    priceCents: number;
    worstCents: number;
    /** A limit order's time in force and post-only, in words. */
    terms: string | null;
  };
  confirmButton: RefObject<HTMLButtonElement | null>;
  pending: boolean;
  onConfirm: () => void;
  onChange: () => void;
}) {
  const buying = order.action === 'BUY';
  const verb = buying ? 'Buy' : 'Sell';
  return (
    <section className="review" aria-labelledby={id}>
      <h3 id={id}>Review your order</h3>
      <p data-testid="review-summary">
        {verb} {formatNumber(order.quantity)} {sideName(order.side)} · {order.optionLabel} ·{' '}
        {order.kind === 'market' ? 'market order, ' : 'limit '}
        {buying ? 'paying at most' : 'receiving at least'} {formatPrice(order.priceCents)} a share:{' '}
        {buying ? 'up to' : 'at least'} {formatCredits(order.worstCents)}.
      </p>
      {order.terms ? <p data-testid="review-terms">Limit order {order.terms}.</p> : null}
      <div className="actions">
        <button ref={confirmButton} type="button" className="button" onClick={onConfirm} disabled={pending}>
          Confirm {verb.toLowerCase()}
        </button>
        <button type="button" className="link-button" onClick={onChange}>
          Change it
        </button>
      </div>
    </section>
  );
}

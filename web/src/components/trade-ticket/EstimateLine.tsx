import type { Action } from '../../api/types';
import { formatNumber, formatPrice } from '../../lib/format';
import type { FillEstimate } from '../../lib/market';
import type { Kind } from './order-draft';

/** The estimate from the visible book, in words: how much fills, at what average, and what happens to the rest. */
export function EstimateLine({
  estimate,
  quantity,
  kind,
  action,
}: {
  estimate: FillEstimate;
  quantity: number;
  kind: Kind;
  action: Action;
}) {
  const rest = quantity - estimate.filled;
  if (estimate.filled === 0) {
    return (
      <p className={kind === 'market' ? 'field-error' : 'muted small'} data-testid="estimate">
        {kind === 'market'
          ? 'Nothing in the book at this price: this order would not fill. Change the price or place a limit order.'
          : `Nothing fills now: the order waits in the book for a ${action === 'BUY' ? 'seller' : 'buyer'}.`}
      </p>
    );
  }
  const fills = `${formatNumber(estimate.filled)} of ${formatNumber(quantity)} fill now at about ${formatPrice(estimate.averageCents)} on average`;
  const tail =
    rest === 0
      ? '.'
      : kind === 'market'
        ? `; the other ${formatNumber(rest)} would be cancelled.`
        : `; ${formatNumber(rest)} wait in the book.`;
  return (
    <p className={rest > 0 && kind === 'market' ? 'warning' : 'muted small'} data-testid="estimate">
      Estimate: {fills}
      {tail}
    </p>
  );
}

import { Link } from 'react-router';
import { formatDate, formatNumber, formatPrice, titleCase } from '../../lib/format';
import type { OrderRow } from './order-actions';

const LIVES = { GTC: 'Until cancelled', GTD: 'Until', IOC: 'Immediate or cancel', FOK: 'Fill or kill' };

/**
 * An open order's market, direction, shares and side (with what has filled), price, and how long it waits (post-only
 * or not): few enough columns, with the actions, for a phone's width.
 */
export function OrderCells({ order, showMarket }: { order: OrderRow; showMarket: boolean }) {
  return (
    <>
      {showMarket ? (
        <td>
          <Link to={`/markets/${order.eventSlug}`}>{order.eventTitle}</Link>
          <div className="muted small">{order.optionLabel}</div>
        </td>
      ) : null}
      <td>
        <span className={order.action === 'BUY' ? 'buy' : 'sell'}>
          {titleCase(order.action.toLowerCase())}
        </span>{' '}
        {formatNumber(order.quantity)}{' '}
        <span className={order.side === 'YES' ? 'yes' : 'no'}>{titleCase(order.side.toLowerCase())}</span>
        {showMarket ? null : <span className="muted"> · {order.optionLabel}</span>}
        {order.filledQuantity > 0 ? (
          <div className="muted small">{formatNumber(order.filledQuantity)} filled</div>
        ) : null}
      </td>
      <td>{formatPrice(order.priceCents)}</td>
      <td>
        {order.expiresAt ? `Until ${formatDate(order.expiresAt)}` : LIVES[order.timeInForce]}
        {order.postOnly ? <div className="muted small">Post-only</div> : null}
      </td>
    </>
  );
}

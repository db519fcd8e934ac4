import { Link } from 'react-router';
import { apiClient, typed } from '../api/client';
import type { Order } from '../api/types';

/** An order as a list shows it; the lists' rows carry their market's title. */
type OrderRow = Order & { eventTitle?: string };

import { formatDate, formatNumber, formatPrice, titleCase } from '../lib/format';
import { useAction } from '../lib/hooks';
import { ErrorMessage } from './Status';
import { TableScroll } from './TableScroll';

function CancelButton({ order, onCancelled }: { order: Order; onCancelled: (order: Order) => void }) {
  const cancel = useAction(async () => {
    onCancelled(
      await typed(apiClient.DELETE('/api/limit-orders/{id}', { params: { path: { id: order.id } } })),
    );
  });
  return (
    <>
      <button
        type="button"
        className="button small ghost danger"
        disabled={cancel.pending}
        onClick={() => void cancel.run()}
        aria-label={`Cancel order: ${order.action === 'BUY' ? 'buy' : 'sell'} ${order.remainingQuantity} ${order.side === 'YES' ? 'Yes' : 'No'} ${order.optionLabel} at ${order.priceCents}¢`}
      >
        {cancel.pending ? 'Cancelling…' : 'Cancel'}
      </button>
      <ErrorMessage error={cancel.error} />
    </>
  );
}

/** Open limit orders, each with a cancel button. */
export function OpenOrdersTable({
  orders,
  showMarket = true,
  onCancelled,
}: {
  orders: OrderRow[];
  showMarket?: boolean;
  onCancelled: (order: Order) => void;
}) {
  return (
    <TableScroll label="Open orders table">
      <table className="data" aria-label="Open orders">
        <thead>
          <tr>
            {showMarket ? <th scope="col">Market</th> : null}
            <th scope="col">Order</th>
            <th scope="col">Price</th>
            <th scope="col">Filled</th>
            <th scope="col">Expires</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {orders.map((order) => (
            <tr key={order.id} data-testid="open-order">
              {showMarket ? (
                <td>
                  <Link to={`/markets/${order.eventSlug}`}>{order.eventTitle ?? order.eventSlug}</Link>
                  <div className="muted small">{order.optionLabel}</div>
                </td>
              ) : null}
              <td>
                <span className={order.action === 'BUY' ? 'buy' : 'sell'}>
                  {titleCase(order.action.toLowerCase())}
                </span>{' '}
                {formatNumber(order.quantity)}{' '}
                <span className={order.side === 'YES' ? 'yes' : 'no'}>
                  {titleCase(order.side.toLowerCase())}
                </span>
                {showMarket ? null : <span className="muted"> · {order.optionLabel}</span>}
              </td>
              <td>{formatPrice(order.priceCents)}</td>
              <td>
                {formatNumber(order.filledQuantity)}/{formatNumber(order.quantity)}
              </td>
              <td>{order.expiresAt ? formatDate(order.expiresAt) : 'Until cancelled'}</td>
              <td>
                <CancelButton order={order} onCancelled={onCancelled} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

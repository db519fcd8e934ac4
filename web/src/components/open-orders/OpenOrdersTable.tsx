import { useEffect, useId, useRef, useState } from 'react';
import type { Order } from '../../api/types';
import { TableScroll } from '../TableScroll';
import { AmendFields } from './AmendFields';
import { OrderCells } from './OrderCells';
import type { OrderRow } from './order-actions';
import { RowActions } from './RowActions';
import { useRovingRows } from './useRovingRows';

/** How long after an amend the keyboard is kept on the amended order while the list changes under it. */
const KEEP_FOCUS_MS = 2_000;

/**
 * Open limit orders, each with Amend (price and shares left, in place) and Cancel. The rows' actions are one stop
 * of the Tab key: the arrow keys move between the orders.
 */
export function OpenOrdersTable({
  orders,
  showMarket = true,
  onCancelled,
  onAmended,
}: {
  orders: OrderRow[];
  showMarket?: boolean;
  onCancelled: (order: Order) => void;
  /** An order amended: `after` may carry a new id (a replacement), and may no longer be open. */
  onAmended: (before: OrderRow, after: OrderRow) => void;
}) {
  const hint = useId();
  const [editing, setEditing] = useState<string | null>(null);
  const roving = useRovingRows(orders.length);
  const columns = showMarket ? 5 : 4;
  // The order the keyboard was on when it was amended (its replacement may have a new id and a new row once the
  // list is read again): for a moment, each change of the list puts the keyboard back on its Amend.
  const keep = useRef<{ id: string; until: number } | null>(null);
  useEffect(() => {
    const wanted = keep.current;
    if (!wanted || Date.now() > wanted.until) return;
    const index = orders.findIndex((order) => order.id === wanted.id);
    const focused = document.activeElement;
    // Lost (on the page's body), or left on another row's action by rows that moved; never taken from elsewhere.
    const lost = !focused || focused === document.body;
    const moved =
      focused instanceof HTMLElement &&
      focused.dataset.action !== undefined &&
      roving.table.current?.contains(focused) &&
      focused.closest('tr')?.dataset.row !== String(index);
    if (index >= 0 && (lost || moved)) roving.focusAction(index, 'amend');
  }, [orders, roving]);
  return (
    <>
      <p id={hint} className="muted small">
        Up and down arrows move between your orders’ actions.
      </p>
      <TableScroll label="Open orders table">
        <table className="data" aria-label="Open orders" aria-describedby={hint} ref={roving.table}>
          <thead>
            <tr>
              {showMarket ? <th scope="col">Market</th> : null}
              <th scope="col">Order</th>
              <th scope="col">Price</th>
              <th scope="col">Terms</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {orders.flatMap((order, index) => [
              <tr key={order.id} data-testid="open-order" data-row={index}>
                <OrderCells order={order} showMarket={showMarket} />
                <td>
                  <RowActions
                    order={order}
                    editing={editing === order.id}
                    tabIndex={roving.tabIndexOf(index)}
                    onKeyDown={(action) => roving.keyDown(index, action)}
                    onFocus={() => roving.activate(index)}
                    onAmend={() => setEditing(editing === order.id ? null : order.id)}
                    onCancelled={(cancelled) => {
                      onCancelled(cancelled);
                      // The row and its buttons are gone: the keyboard goes to the next order's Cancel.
                      roving.focusAction(index, 'cancel', orders.length - 1);
                    }}
                  />
                </td>
              </tr>,
              editing === order.id ? (
                <tr key={`${order.id}-amend`} className="amend-row">
                  <td colSpan={columns}>
                    <AmendFields
                      order={order}
                      onAmended={(before, after) => {
                        keep.current = { id: after.id, until: Date.now() + KEEP_FOCUS_MS };
                        onAmended(before, after);
                      }}
                      onDone={() => {
                        setEditing(null);
                        roving.focusAction(index, 'amend');
                      }}
                    />
                  </td>
                </tr>
              ) : null,
            ])}
          </tbody>
        </table>
      </TableScroll>
    </>
  );
}

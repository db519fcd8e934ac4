import type { KeyboardEvent } from 'react';
import type { Order } from '../../api/types';
import { useAction } from '../../lib/hooks';
import { ErrorMessage } from '../Status';
import { cancelOrder, orderInWords } from './order-actions';

/** An open order's Amend (opens its fields below the row) and Cancel, in the table's one stop of the Tab key. */
export function RowActions({
  order,
  editing,
  tabIndex,
  onKeyDown,
  onFocus,
  onAmend,
  onCancelled,
}: {
  order: Order;
  editing: boolean;
  tabIndex: number;
  onKeyDown: (action: string) => (event: KeyboardEvent<HTMLButtonElement>) => void;
  onFocus: () => void;
  onAmend: () => void;
  onCancelled: (order: Order) => void;
}) {
  const cancel = useAction(async () => onCancelled(await cancelOrder(order)));
  const words = orderInWords(order);
  return (
    <>
      <div className="row-actions">
        <button
          type="button"
          className="button small ghost"
          data-action="amend"
          tabIndex={tabIndex}
          aria-expanded={editing}
          aria-label={`Amend order: ${words}`}
          onKeyDown={onKeyDown('amend')}
          onFocus={onFocus}
          onClick={onAmend}
        >
          Amend
        </button>
        <button
          type="button"
          className="button small ghost danger"
          data-action="cancel"
          tabIndex={tabIndex}
          disabled={cancel.pending}
          aria-label={`Cancel order: ${words}`}
          onKeyDown={onKeyDown('cancel')}
          onFocus={onFocus}
          onClick={() => void cancel.run()}
        >
          {cancel.pending ? 'Cancelling…' : 'Cancel'}
        </button>
      </div>
      <ErrorMessage error={cancel.error} />
    </>
  );
}

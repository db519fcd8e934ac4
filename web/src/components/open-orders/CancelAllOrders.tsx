import { apiClient, typed } from '../../api/client';
import { formatNumber } from '../../lib/format';
import { ConfirmButton } from '../Confirm';

/**
 * One button for every open order of a market (`eventSlug`) or of the account: it asks first, then cancels them
 * all in one request (which always works, even with the request budget spent).
 */
export function CancelAllOrders({
  eventSlug,
  count,
  onCancelled,
}: {
  eventSlug?: string;
  /** The open orders the list shows; the request cancels those the list has not loaded yet too. */
  count: number;
  onCancelled: () => void;
}) {
  const where = eventSlug ? ' in this market' : '';
  return (
    <ConfirmButton
      label={eventSlug ? 'Cancel all here' : 'Cancel all orders'}
      title={`Cancel every open order${where}?`}
      describe={() => (
        <p>
          {count === 1 ? 'Your open order' : `All ${formatNumber(count)} of your open orders`}
          {where}
          {eventSlug ? '' : ', in every market,'} will be cancelled, and what they hold is freed. Fills
          already made stay.
        </p>
      )}
      onConfirm={async () => {
        await typed(apiClient.POST('/api/limit-orders/cancel-all', { body: eventSlug ? { eventSlug } : {} }));
        onCancelled();
      }}
    />
  );
}

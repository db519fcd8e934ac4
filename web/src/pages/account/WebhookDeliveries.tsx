import { DeliveryAttempts } from '../../components/DeliveryAttempts';
import { PagedList } from '../../components/Paged';
import { usePagedApi } from '../../lib/hooks';

/** A webhook's deliveries, newest first, each with every attempt and its outcome. */
export function WebhookDeliveries({ webhookId }: { webhookId: string }) {
  const deliveries = usePagedApi('/api/me/webhooks/{id}/deliveries', {
    params: { path: { id: webhookId }, query: { limit: 20 } },
  });
  return (
    <PagedList list={deliveries} empty="Nothing delivered yet.">
      {(items) => (
        <ul className="plain rows" aria-label="Deliveries">
          {items.map((delivery) => (
            <li key={delivery.id} className="row" data-testid="delivery">
              <DeliveryAttempts delivery={delivery} />
            </li>
          ))}
        </ul>
      )}
    </PagedList>
  );
}

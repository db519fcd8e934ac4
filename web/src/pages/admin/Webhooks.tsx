import { useState } from 'react';
import type { AdminDelivery } from '../../api/console-types';
import { DeliveryAttempts } from '../../components/DeliveryAttempts';
import { PagedList } from '../../components/Paged';
import { useDocumentTitle, usePagedApi } from '../../lib/hooks';
import { QueueHeading } from './AdminLayout';

/** Every user's webhook deliveries with their attempts: where deliveries fail, and why. */
export function AdminWebhooksPage() {
  useDocumentTitle('Console · Webhooks');
  const [status, setStatus] = useState<AdminDelivery['status'] | ''>('failed');
  const deliveries = usePagedApi('/api/admin/webhook-deliveries', {
    params: { query: { status: status || undefined, limit: 30 } },
  });
  return (
    <section className="card" aria-labelledby="webhooks-heading">
      <QueueHeading
        id="webhooks"
        title="Webhook deliveries"
        status={status}
        statuses={['failed', 'pending', 'succeeded'] as const}
        allValue={''}
        onStatus={setStatus}
      />
      <p className="muted small">
        Each event is tried about ten times over a day before it is marked failed. The owner sees the same
        attempts on their account page.
      </p>
      <PagedList list={deliveries} empty="No deliveries in this state.">
        {(items) => (
          <ul className="plain rows" aria-label="Webhook deliveries">
            {items.map((delivery) => (
              <li key={delivery.id} className="row" data-testid="admin-delivery">
                <DeliveryAttempts delivery={delivery}>
                  <div className="small break">
                    to <code>{delivery.url}</code> for {delivery.owner.username}
                  </div>
                </DeliveryAttempts>
              </li>
            ))}
          </ul>
        )}
      </PagedList>
    </section>
  );
}

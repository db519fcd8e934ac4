import type { Webhook } from '../../api/types';
import { formatDay } from '../../lib/format';
import { WebhookDeliveries } from './WebhookDeliveries';

/** The account's webhooks, each with what it hears, its delivery attempts and a way to delete it. */
export function WebhookList({ hooks, onDelete }: { hooks: Webhook[]; onDelete: (hook: Webhook) => void }) {
  return (
    <ul className="plain rows">
      {hooks.map((hook) => (
        <li key={hook.id} className="row">
          <div>
            <code className="break">{hook.url}</code>
            <div className="muted small">
              {hook.description ? `${hook.description} · ` : ''}
              {hook.events?.length ? hook.events.join(', ') : 'All events'} · since{' '}
              {formatDay(hook.createdAt)}
            </div>
            <details>
              <summary>Delivery attempts</summary>
              <WebhookDeliveries webhookId={hook.id} />
            </details>
          </div>
          <button type="button" className="button small ghost danger" onClick={() => onDelete(hook)}>
            Delete<span className="visually-hidden"> webhook {hook.url}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

import type { FormEvent } from 'react';
import type { WebhookEventType } from '../../api/types';

const WEBHOOK_EVENTS: WebhookEventType[] = [
  'order.filled',
  'order.cancelled',
  'order.expired',
  'trade.executed',
  'position.protection_triggered',
  'market.resolved',
  'market.settled',
  'notification.created',
];

/** A new webhook: where to send, what it is for, and which events (none ticked: all). */
export function WebhookForm({
  draft,
  onUrl,
  onDescription,
  onEvents,
  creating,
  onSubmit,
}: {
  draft: { url: string; description: string; events: WebhookEventType[] };
  onUrl: (url: string) => void;
  onDescription: (description: string) => void;
  onEvents: (events: WebhookEventType[]) => void;
  creating: boolean;
  onSubmit: (event: FormEvent) => void;
}) {
  const { events } = draft;
  return (
    <form onSubmit={onSubmit} className="stack">
      <div className="field">
        <label htmlFor="hook-url">Endpoint URL</label>
        <input
          id="hook-url"
          type="url"
          value={draft.url}
          placeholder="https://example.com/hooks"
          onChange={(e) => onUrl(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor="hook-description">Description (optional)</label>
        <input
          id="hook-description"
          value={draft.description}
          maxLength={200}
          onChange={(e) => onDescription(e.target.value)}
        />
      </div>
      <fieldset>
        <legend>Events (none ticked: all of them)</legend>
        <div className="check-grid">
          {WEBHOOK_EVENTS.map((type) => (
            <label key={type} className="check">
              <input
                type="checkbox"
                checked={events.includes(type)}
                onChange={(event) =>
                  onEvents(event.target.checked ? [...events, type] : events.filter((item) => item !== type))
                }
              />
              <code>{type}</code>
            </label>
          ))}
        </div>
      </fieldset>
      <button type="submit" className="button" disabled={!draft.url.trim() || creating}>
        Add webhook
      </button>
    </form>
  );
}

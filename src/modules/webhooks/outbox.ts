import type { Queryable } from '../../platform/db/types.js';
import type { NotificationRow } from '../notifications/service.js';
import type { WebhookEventType } from './events.js';
import type { WebhooksRepository } from './repository.js';
import { newMessageId } from './signature.js';

/** A subscription as the outbox reads it: whose, and the event types it wants (null: all). */
export interface Subscription {
  id: number;
  user_id: number;
  event_types: string[] | null;
}

export interface WebhookEvent {
  userId: number;
  type: WebhookEventType;
  data: Record<string, unknown>;
}

/** Feed items whose change publishes its own typed event with richer data; the feed copy is not sent again. */
const PUBLISHED_AT_SOURCE = new Set<string>([
  'order.filled',
  'order.cancelled',
  'order.expired',
  'trade.executed',
  'conversion.completed',
  'position.protection_triggered',
]);
/** Feed items delivered under their own type rather than as notification.created. */
const TYPED_FEED_ITEMS = new Set<string>(['market.resolved', 'market.settled']);

/**
 * The transactional outbox. Events are written in the caller's transaction, so a webhook exists exactly when the
 * change it describes was committed; the delivery job sends them afterwards. Nothing is written for a user
 * without a subscription that wants the type.
 */
export class WebhookOutbox {
  constructor(private readonly webhooks: WebhooksRepository) {}

  /** The webhook subscriptions of these users, to hand to `publish` (a user without any gets no event). */
  subscriptionsOf(trx: Queryable, userIds: number[]): Promise<Subscription[]> {
    return this.webhooks.subscriptionsOf(trx, userIds);
  }

  /** `subscriptions`: the events' users' subscriptions, when the caller has read them already. */
  async publish(trx: Queryable, events: WebhookEvent[], subscriptions?: Subscription[]): Promise<void> {
    if (events.length === 0) return;
    subscriptions ??= await this.subscriptionsOf(trx, [...new Set(events.map((e) => e.userId))]);
    if (subscriptions.length === 0) return;
    const createdAt = new Date().toISOString();
    const rows = [];
    for (const event of events) {
      const subscriptionIds = subscriptions
        .filter((s) => wants(s, event.userId, event.type))
        .map((s) => s.id);
      if (subscriptionIds.length === 0) continue;
      const messageId = newMessageId();
      const body = JSON.stringify({ id: messageId, type: event.type, createdAt, data: event.data });
      rows.push({ messageId, userId: event.userId, type: event.type, body, subscriptionIds });
    }
    await this.webhooks.insertEvents(trx, rows);
  }

  /** The webhook form of feed items, for the notifications listener. */
  publishNotifications(trx: Queryable, rows: NotificationRow[]): Promise<void> {
    return this.publish(trx, rows.filter((row) => !PUBLISHED_AT_SOURCE.has(row.type)).map(toWebhookEvent));
  }
}

/** Whether a subscription receives a user's event of this type. */
function wants(subscription: Subscription, userId: number, type: string): boolean {
  return (
    subscription.user_id === userId &&
    (subscription.event_types === null || subscription.event_types.includes(type))
  );
}

/**
 * Webhook events gathered for `publish`, each made only when one of the given subscriptions wants it: most traders
 * have none, and an event's data (the order, each trade) is then never built.
 */
export class WebhookEvents {
  readonly list: WebhookEvent[] = [];

  constructor(private readonly subscriptions: Subscription[]) {}

  add(userId: number, type: WebhookEventType, data: () => Record<string, unknown>): void {
    if (this.subscriptions.some((s) => wants(s, userId, type)))
      this.list.push({ userId, type, data: data() });
  }
}

function toWebhookEvent(row: NotificationRow): WebhookEvent {
  if (TYPED_FEED_ITEMS.has(row.type)) {
    return {
      userId: row.user_id,
      type: row.type as WebhookEventType,
      data: { ...row.data, title: row.title, body: row.body, notificationId: String(row.id) },
    };
  }
  return {
    userId: row.user_id,
    type: 'notification.created',
    data: {
      id: String(row.id),
      type: row.type,
      title: row.title,
      body: row.body,
      data: row.data,
      createdAt: row.created_at.toISOString(),
    },
  };
}

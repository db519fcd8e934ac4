import type { ColumnType } from 'kysely';
import type { CreatedAt, Id, Timestamp } from '../../platform/db/columns.js';

export interface WebhookSubscriptionsTable {
  id: Id;
  user_id: number;
  url: string;
  description: string | null;
  event_types: ColumnType<string[] | null, string | null, string | null>;
  secret: string;
  created_at: CreatedAt;
}

export interface WebhookEventsTable {
  id: Id;
  message_id: string;
  user_id: number;
  type: string;
  body: string;
  created_at: CreatedAt;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: Id;
  event_id: number;
  subscription_id: number;
  status: ColumnType<DeliveryStatus, DeliveryStatus | undefined, DeliveryStatus>;
  attempt_count: ColumnType<number, number | undefined, number>;
  next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>;
  created_at: CreatedAt;
  completed_at: Timestamp | null;
}

export interface WebhookAttemptsTable {
  id: Id;
  delivery_id: number;
  attempted_at: Timestamp;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  next_attempt_at: Timestamp | null;
}

export interface WebhookTables {
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}

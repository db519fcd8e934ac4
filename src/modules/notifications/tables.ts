import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Id, Timestamp } from '../../platform/db/columns.js';

export interface NotificationsTable {
  id: Id;
  user_id: number;
  type: string;
  title: string;
  body: string;
  data: ColumnType<Record<string, unknown>, string | undefined, string>;
  read_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface NotificationTables {
  notifications: NotificationsTable;
}

export type { Generated };

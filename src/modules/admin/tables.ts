import type { ColumnType } from 'kysely';
import type { CreatedAt, Id } from '../../platform/db/columns.js';

export type AdminVia = 'api' | 'cli' | 'bootstrap';

export interface AdminActionsTable {
  id: Id;
  actor_id: number | null;
  via: AdminVia;
  action: string;
  summary: string;
  target_type: string | null;
  target_id: string | null;
  details: ColumnType<unknown, string | null, never> | null;
  address: string | null;
  created_at: CreatedAt;
}

export interface AdminBootstrapTokensTable {
  token_hash: string;
  created_at: CreatedAt;
}

export interface AdminTables {
  admin_actions: AdminActionsTable;
  admin_bootstrap_tokens: AdminBootstrapTokensTable;
}

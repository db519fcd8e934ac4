import type { ColumnType } from 'kysely';
import type { CreatedAt, Id, Timestamp, UpdatedAt } from '../../platform/db/columns.js';

export type EmailLinkPurpose = 'verify' | 'reset';

export interface EmailLinksTable {
  id: Id;
  user_id: number;
  purpose: EmailLinkPurpose;
  email: string;
  token_hash: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface LoginKnownAddressesTable {
  user_id: number;
  address_hash: string;
  first_seen_at: CreatedAt;
  last_seen_at: UpdatedAt;
}

export interface SecurityEventsTable {
  id: Id;
  user_id: number;
  kind: string;
  address: string | null;
  user_agent: string | null;
  details: ColumnType<unknown, string | null, never>;
  created_at: CreatedAt;
}

export interface AccountTables {
  email_links: EmailLinksTable;
  login_known_addresses: LoginKnownAddressesTable;
  security_events: SecurityEventsTable;
}

import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Id, SideText, Timestamp, UpdatedAt } from '../../platform/db/columns.js';

export type SizingMode = 'fixed' | 'fraction';

export interface CopyFollowsTable {
  id: Id;
  follower_id: number;
  leader_id: number;
  sizing_mode: SizingMode;
  fixed_quantity: number | null;
  fraction_bps: number | null;
  max_quantity_per_trade: number;
  daily_limit_cents: number;
  enabled: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type MirrorStatus = 'pending' | 'processing' | 'placed' | 'skipped';

export interface CopyMirrorsTable {
  id: Id;
  leader_order_id: number;
  leader_id: number;
  follower_id: number;
  option_id: number;
  side: SideText;
  action: 'BUY' | 'SELL';
  leader_quantity: number;
  leader_notional_cents: number;
  worst_price_cents: number;
  status: ColumnType<MirrorStatus, MirrorStatus | undefined, MirrorStatus>;
  quantity: number | null;
  notional_cents: Generated<number>;
  order_id: number | null;
  filled_quantity: Generated<number>;
  reason: string | null;
  claimed_at: Timestamp | null;
  processed_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface AutomationTables {
  copy_follows: CopyFollowsTable;
  copy_mirrors: CopyMirrorsTable;
}

import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { SecondFactorTables } from '../../modules/accounts/second-factor-tables.js';
import type { AccountTables } from '../../modules/accounts/tables.js';
import type { AdminTables } from '../../modules/admin/tables.js';
import type { AutomationTables } from '../../modules/automation/tables.js';
import type { CompetitionTables } from '../../modules/competitions/tables.js';
import type { FlagTables } from '../../modules/flags/tables.js';
import type { GamificationTables } from '../../modules/gamification/tables.js';
import type { IntegrationTables } from '../../modules/integrations/tables.js';
import type { MarketTables } from '../../modules/markets/tables.js';
import type { NotificationTables } from '../../modules/notifications/tables.js';
import type { ProfileTables } from '../../modules/profile/tables.js';
import type { SocialTables } from '../../modules/social/tables.js';
import type { WebhookTables } from '../../modules/webhooks/tables.js';

import type { ActionText, CreatedAt, Id, SideText, Timestamp, UpdatedAt } from './columns.js';

export type { ActionText, CreatedAt, Id, SideText, Timestamp, UpdatedAt };

export interface UsersTable {
  id: Id;
  email: string;
  username: string;
  password_hash: string;
  first_name: string | null;
  last_name: string | null;
  role: Generated<'user' | 'admin'>;
  referral_code: string;
  referred_by: number | null;
  suspended_at: Timestamp | null;
  streak_current: Generated<number>;
  streak_longest: Generated<number>;
  streak_last_day: string | null;
  created_at: CreatedAt;
  /** When the address was proven by a link sent to it; null: never. */
  email_verified_at: Timestamp | null;
}

export interface SessionsTable {
  id: Id;
  user_id: number;
  token_hash: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  created_ip: string | null;
  user_agent: string | null;
  last_used_at: Timestamp | null;
  last_used_ip: string | null;
}

export interface ApiKeysTable {
  id: Id;
  user_id: number;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: CreatedAt;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
  last_used_ip: string | null;
  scopes: ColumnType<string[], string[] | undefined, string[]>;
  allowed_cidrs: string[] | null;
  expires_at: Timestamp | null;
}

/** An API key's risk limits (src/exchange/key-limits.ts); its row is also the key's lock in the order pipeline. */
export interface ApiKeyLimitsTable {
  key_id: number;
  max_order_cents: number | null;
  max_open_orders: number | null;
  max_position_shares: number | null;
  max_daily_loss_cents: number | null;
  updated_at: UpdatedAt;
}

export interface LoginThrottleTable {
  key: string;
  failures: number;
  last_failed_at: Timestamp;
  blocked_until: Timestamp | null;
}

export type LedgerAccountKind =
  | 'cash'
  | 'reserved'
  | 'transit'
  | 'escrow'
  | 'bonus'
  | 'amm'
  | 'fees'
  | 'stakes'
  | 'conversion';

export interface LedgerAccountsTable {
  id: Id;
  kind: LedgerAccountKind;
  user_id: number | null;
  option_id: number | null;
  event_id: Generated<number | null>;
  /** Null for the accounts whose balance is the sum of their postings (SUMMED_KINDS in exchange/ledger.ts). */
  balance: Generated<number | null>;
}

export interface JournalEntriesTable {
  id: Id;
  kind: string;
  memo: string;
  user_id: number | null;
  ref_type: string | null;
  ref_id: number | null;
  created_at: CreatedAt;
}

export interface PostingsTable {
  id: Id;
  entry_id: number;
  account_id: number;
  amount: number;
}

export interface FoundationTables {
  users: UsersTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  api_key_limits: ApiKeyLimitsTable;
  login_throttle: LoginThrottleTable;
  ledger_accounts: LedgerAccountsTable;
  journal_entries: JournalEntriesTable;
  postings: PostingsTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;

export type EventStatus = 'draft' | 'open' | 'closed' | 'resolved' | 'settled';
export type OrderStatus = 'open' | 'partially_filled' | 'filled' | 'cancelled' | 'expired';

export interface EventsTable {
  id: Id;
  slug: string;
  title: string;
  description: Generated<string>;
  category: string;
  featured: Generated<boolean>;
  status: Generated<EventStatus>;
  resolution_source: string | null;
  /** Exactly one option resolves YES; one house maker spans the options (liquidity_b). */
  exclusive: Generated<boolean>;
  liquidity_b: Generated<number>;
  closes_at: Timestamp;
  opened_at: Timestamp | null;
  closed_at: Timestamp | null;
  resolved_at: Timestamp | null;
  settled_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  search: ColumnType<string, never, never>;
  search_words: ColumnType<string, never, never>;
}

export interface OptionsTable {
  id: Id;
  event_id: number;
  label: string;
  sort_order: Generated<number>;
  resolution: 'YES' | 'NO' | 'VOID' | null;
  /** What a YES share pays at settlement (a NO share the rest of 100), set with the resolution. */
  yes_payout_cents: Generated<number | null>;
  liquidity_b: Generated<number>;
  amm_offset: Generated<number>;
  amm_yes_shares: Generated<number>;
  amm_no_shares: Generated<number>;
  pairs_minted: Generated<number>;
  pairs_merged: Generated<number>;
  last_yes_price: number | null;
  volume_shares: Generated<number>;
  volume_cents: Generated<number>;
  book_version: Generated<number>;
  pool_yes_shares: Generated<number>;
  pool_no_shares: Generated<number>;
  amm_cash_cents: Generated<number>;
  /** The chance the option showed when its event was settled, in basis points (null before). */
  closing_probability_bps: Generated<number | null>;
  created_at: CreatedAt;
}

export interface ConversionsTable {
  id: Id;
  user_id: number;
  event_id: number;
  kind: 'convert' | 'split' | 'merge';
  quantity: number;
  option_ids: Generated<number[]>;
  cash_cents: number;
  legs: ColumnType<unknown, string, never>;
  created_at: CreatedAt;
}

export interface OrdersTable {
  id: Id;
  user_id: number;
  option_id: number;
  kind: 'market' | 'limit';
  side: SideText;
  action: ActionText;
  price_cents: number;
  book_side: 'bid' | 'ask';
  book_price: number;
  quantity: number;
  filled_quantity: Generated<number>;
  reserved_cents: Generated<number>;
  status: OrderStatus;
  cancel_reason: string | null;
  client_order_id: string | null;
  expires_at: Timestamp | null;
  time_in_force: Generated<'GTC' | 'GTD' | 'IOC' | 'FOK'>;
  post_only: Generated<boolean>;
  /** The credential that placed it: `apiKey:<id>` or `session:<id>`. */
  placed_by: string | null;
  replaces_order_id: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  /** Set by a trigger: one more than the option's book_version when the row was written. */
  book_version: Generated<number>;
}

export interface FillsTable {
  id: Id;
  option_id: number;
  yes_price: number;
  quantity: number;
  kind: 'mint' | 'transfer' | 'merge';
  taker_order_id: number;
  maker_order_id: number | null;
  created_at: CreatedAt;
}

export interface TradesTable {
  id: Id;
  fill_id: number;
  order_id: number;
  user_id: number;
  option_id: number;
  event_id: number;
  side: SideText;
  action: ActionText;
  quantity: number;
  price_cents: number;
  fee_cents: Generated<number>;
  liquidity: 'maker' | 'taker';
  created_at: CreatedAt;
}

export interface PositionsTable {
  id: Id;
  user_id: number;
  option_id: number;
  side: SideText;
  quantity: Generated<number>;
  reserved_quantity: Generated<number>;
  cost_cents: Generated<number>;
  realized_pnl_cents: Generated<number>;
  stop_loss_bps: number | null;
  take_profit_bps: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface IdempotencyKeysTable {
  user_id: number;
  key: string;
  request_hash: string;
  status_code: number | null;
  response: ColumnType<unknown, string | null, string | null> | null;
  created_at: CreatedAt;
}

/** A credential's dead man's switch: disarmed when `expires_at` is null. */
export interface HeartbeatsTable {
  credential: string;
  user_id: number;
  timeout_ms: number;
  armed_at: Timestamp;
  last_beat_at: Timestamp;
  expires_at: Timestamp | null;
  fired_at: Timestamp | null;
  cancelled_orders: Generated<number>;
}

export interface DisputesTable {
  id: Id;
  event_id: number;
  user_id: number;
  reason: string;
  evidence_url: string | null;
  status: Generated<'pending' | 'upheld' | 'rejected'>;
  decision_note: string | null;
  decided_by: number | null;
  created_at: CreatedAt;
  decided_at: Timestamp | null;
}

export interface PositionSettlementsTable {
  id: Id;
  user_id: number;
  option_id: number;
  event_id: number;
  side: SideText;
  outcome: 'YES' | 'NO' | 'VOID';
  quantity: number;
  payout_cents: number;
  pnl_cents: number;
  created_at: CreatedAt;
}

/** The leaderboard's figures per trader, kept by triggers on trades, positions and settlements (migration 190). */
export interface TraderTotalsTable {
  user_id: number;
  volume_cents: Generated<number>;
  realized_pnl_cents: Generated<number>;
  positions_with_result: Generated<number>;
  winning_predictions: Generated<number>;
  /** Executions (trades rows) of the trader. */
  trades: Generated<number>;
}

/** Cash set aside for one part of a request on its way to a market (collateral.ts). */
export interface CollateralHoldsTable {
  id: Id;
  user_id: number;
  market: string;
  amount_cents: number;
  expires_at: Timestamp;
  created_at: CreatedAt;
}

/** What a market gave back to a user, until the user's next collateral step takes it into cash. */
export interface CollateralReturnsTable {
  id: Id;
  user_id: number;
  amount_cents: number;
  created_at: CreatedAt;
}

export interface ExchangeTables {
  collateral_holds: CollateralHoldsTable;
  collateral_returns: CollateralReturnsTable;
  position_settlements: PositionSettlementsTable;
  events: EventsTable;
  options: OptionsTable;
  orders: OrdersTable;
  fills: FillsTable;
  trades: TradesTable;
  positions: PositionsTable;
  idempotency_keys: IdempotencyKeysTable;
  heartbeats: HeartbeatsTable;
  disputes: DisputesTable;
  conversions: ConversionsTable;
  trader_totals: TraderTotalsTable;
}

export interface DB
  extends FoundationTables,
    ExchangeTables,
    NotificationTables,
    FlagTables,
    IntegrationTables,
    MarketTables,
    SocialTables,
    CompetitionTables,
    GamificationTables,
    ProfileTables,
    WebhookTables,
    AutomationTables,
    AccountTables,
    AdminTables,
    SecondFactorTables {}

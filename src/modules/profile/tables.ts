import type { Generated } from 'kysely';
import type { CreatedAt, Id, UpdatedAt } from '../../platform/db/columns.js';

export interface UserPreferencesTable {
  user_id: number;
  display_name: string | null;
  bio: Generated<string>;
  dark_mode: Generated<boolean>;
  timezone: string | null;
  notify_trades: Generated<boolean>;
  notify_social: Generated<boolean>;
  notify_competitions: Generated<boolean>;
  notify_marketing: Generated<boolean>;
  notify_new_sign_in: Generated<boolean>;
  avatar_key: string | null;
  updated_at: UpdatedAt;
}

export interface TradeNotesTable {
  id: Id;
  user_id: number;
  event_id: number;
  trade_id: number | null;
  text: string;
  created_at: CreatedAt;
}

export interface WatchlistItemsTable {
  id: Id;
  user_id: number;
  event_id: number;
  created_at: CreatedAt;
}

export interface FollowsTable {
  id: Id;
  follower_id: number;
  followee_id: number;
  created_at: CreatedAt;
}

export interface ProfileTables {
  user_preferences: UserPreferencesTable;
  trade_notes: TradeNotesTable;
  watchlist_items: WatchlistItemsTable;
  follows: FollowsTable;
}

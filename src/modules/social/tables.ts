import type { ColumnType } from 'kysely';
import type { CreatedAt, Id, Timestamp } from '../../platform/db/columns.js';

export type ReportTargetType = 'POST' | 'COMMENT' | 'USER';
export type ReportStatus = 'open' | 'dismissed' | 'hidden' | 'suspended';
export type SuggestionStatus = 'pending' | 'approved' | 'rejected';

export interface PostsTable {
  id: Id;
  event_id: number;
  user_id: number;
  body: string;
  hidden_at: Timestamp | null;
  deleted_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface PostLikesTable {
  post_id: number;
  user_id: number;
  created_at: CreatedAt;
}

export interface CommentsTable {
  id: Id;
  post_id: number;
  user_id: number;
  body: string;
  hidden_at: Timestamp | null;
  deleted_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface ReportsTable {
  id: Id;
  reporter_id: number;
  target_type: ReportTargetType;
  target_id: number;
  reason: string;
  status: ColumnType<ReportStatus, ReportStatus | undefined, ReportStatus>;
  resolution_note: string | null;
  resolved_by: number | null;
  resolved_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface MarketSuggestionsTable {
  id: Id;
  user_id: number;
  title: string;
  description: ColumnType<string, string | undefined, string>;
  category: string;
  options: ColumnType<string[], string, string>;
  resolution_source: string | null;
  closes_at: Timestamp | null;
  status: ColumnType<SuggestionStatus, SuggestionStatus | undefined, SuggestionStatus>;
  rejection_reason: string | null;
  event_id: number | null;
  reviewed_by: number | null;
  reviewed_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface SocialTables {
  posts: PostsTable;
  post_likes: PostLikesTable;
  comments: CommentsTable;
  reports: ReportsTable;
  market_suggestions: MarketSuggestionsTable;
}

import type { ColumnType } from 'kysely';
import type { CreatedAt, Id, Timestamp } from '../../platform/db/columns.js';

export type ChallengeStatus = 'open' | 'accepted' | 'settled' | 'expired';

export interface ChallengesTable {
  id: Id;
  code: string;
  creator_id: number;
  opponent_id: number | null;
  event_id: number | null;
  starts_at: Timestamp | null;
  ends_at: Timestamp | null;
  stake_cents: number;
  status: ColumnType<ChallengeStatus, ChallengeStatus | undefined, ChallengeStatus>;
  expires_at: Timestamp;
  accepted_at: Timestamp | null;
  settled_at: Timestamp | null;
  creator_pnl_cents: number | null;
  opponent_pnl_cents: number | null;
  winner_id: number | null;
  created_at: CreatedAt;
}

export interface TournamentsTable {
  id: Id;
  slug: string;
  title: string;
  description: ColumnType<string, string | undefined, string>;
  starts_at: Timestamp;
  ends_at: Timestamp;
  entry_closes_at: Timestamp;
  prizes: ColumnType<number[], string, string>;
  created_by: number | null;
  finished_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface TournamentEventsTable {
  tournament_id: number;
  event_id: number;
}

export interface TournamentEntriesTable {
  tournament_id: number;
  user_id: number;
  joined_at: CreatedAt;
}

export interface TournamentResultsTable {
  tournament_id: number;
  user_id: number;
  rank: number | null;
  score_bps: number;
  pnl_cents: number;
  cost_cents: number;
  trades: number;
  prize_cents: number;
}

export interface CompetitionTables {
  challenges: ChallengesTable;
  tournaments: TournamentsTable;
  tournament_events: TournamentEventsTable;
  tournament_entries: TournamentEntriesTable;
  tournament_results: TournamentResultsTable;
}

import type { Generated } from 'kysely';
import type { CreatedAt, Id, UpdatedAt } from '../../platform/db/columns.js';

export interface UserBadgesTable {
  user_id: number;
  badge_id: string;
  earned_at: CreatedAt;
}

export interface ReferralRewardsTable {
  id: Id;
  referred_user_id: number;
  referrer_id: number;
  amount_cents: number;
  created_at: CreatedAt;
}

export interface GamificationCursorsTable {
  name: string;
  last_id: Generated<number>;
  last_at: UpdatedAt;
}

export interface GamificationTables {
  user_badges: UserBadgesTable;
  referral_rewards: ReferralRewardsTable;
  gamification_cursors: GamificationCursorsTable;
}

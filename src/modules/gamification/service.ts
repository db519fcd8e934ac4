import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';
import type { NotificationsService } from '../notifications/service.js';
import {
  type ActivityStats,
  BADGES,
  BADGES_BY_ID,
  type BadgeDefinition,
  isAchieved,
  NO_ACTIVITY,
  progressOf,
  STREAK_BADGES,
} from './badges.js';
import type { GamificationRepository } from './repository.js';
import { type LevelView, levelOf, type XpBreakdown, xpBreakdown } from './xp.js';

/** How many trades or settled events one scan reads, and how many due users it awards at once. */
const SCAN_BATCH = 500;
const DUE_BATCH = 200;

export const BADGE_SCAN_JOB = 'gamification.award-badges';

export interface EarnedBadge extends BadgeDefinition {
  earnedAt: Date;
}

export interface LockedBadge extends BadgeDefinition {
  progress: { current: number; target: number; unit: 'cents' | 'count' };
}

/**
 * Badges and XP. Badges are awarded by a background scan of new activity (never in the order path) and,
 * idempotently, when a user looks at their own badges; the unique (user, badge) key makes both safe.
 */
export class BadgesService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly repository: GamificationRepository,
    private readonly notifications: NotificationsService,
  ) {}

  async badges(userId: number): Promise<{ earned: EarnedBadge[]; locked: LockedBadge[] }> {
    const stats = await this.db.transaction().execute(async (trx) => {
      const all = await this.awardDue(trx, [userId]);
      return all.get(userId);
    });
    const earnedRows = await this.repository.earnedBadges(this.db, [userId]);
    const earnedIds = new Set(earnedRows.map((row) => row.badge_id));
    const earned = earnedRows.flatMap((row) => {
      const badge = BADGES_BY_ID.get(row.badge_id);
      return badge ? [{ ...badge, earnedAt: row.earned_at }] : [];
    });
    const locked = BADGES.filter((badge) => !earnedIds.has(badge.id)).map((badge) => ({
      ...badge,
      progress: {
        ...(stats ? progressOf(badge, stats) : { current: 0, target: badge.target }),
        unit: badge.metric.endsWith('Cents') ? ('cents' as const) : ('count' as const),
      },
    }));
    return { earned, locked };
  }

  async xp(userId: number): Promise<LevelView & { breakdown: XpBreakdown }> {
    const stats = await this.db.transaction().execute(async (trx) => {
      const all = await this.awardDue(trx, [userId]);
      return all.get(userId);
    });
    const badgesEarned = await this.repository.countBadges(this.db, userId);
    const breakdown = xpBreakdown(stats ?? NO_ACTIVITY, badgesEarned);
    const total = Object.values(breakdown).reduce((sum, part) => sum + part, 0);
    return { ...levelOf(total), breakdown };
  }

  /**
   * One pass of the background scan: users with trades or settled markets since the stored cursors, plus
   * users whose streak or tournament placing is due a badge. Returns rows consumed plus badges awarded,
   * so a pass that finds nothing new returns 0.
   */
  async scanForBadges(): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const tradeCursor = await this.repository.claimCursor(trx, 'badges.trades');
      const settlementCursor = await this.repository.claimCursor(trx, 'badges.settlements');
      if (!tradeCursor || !settlementCursor) return 0;
      const trades = await this.repository.tradesAfter(trx, tradeCursor, SCAN_BATCH);
      const settlements = await this.repository.settlementsAfter(trx, settlementCursor, SCAN_BATCH);
      const streaks = await this.repository.streaksDueBadges(trx, STREAK_BADGES, DUE_BATCH);
      const placings = await this.repository.placingsDueBadges(
        trx,
        { podium: 'tournament-podium', winner: 'tournament-winner' },
        DUE_BATCH,
      );
      const users = [...new Set([...trades.userIds, ...settlements.userIds, ...streaks, ...placings])];
      let awarded = 0;
      for (let i = 0; i < users.length; i += DUE_BATCH) {
        awarded += (await this.award(trx, users.slice(i, i + DUE_BATCH))).awarded;
      }
      if (trades.advanceTo) await this.repository.moveCursor(trx, 'badges.trades', trades.advanceTo);
      if (settlements.advanceTo) {
        await this.repository.moveCursor(trx, 'badges.settlements', settlements.advanceTo);
      }
      return trades.consumed + settlements.consumed + awarded;
    });
  }

  private async awardDue(trx: Queryable, userIds: number[]): Promise<Map<number, ActivityStats>> {
    return (await this.award(trx, userIds)).stats;
  }

  private async award(
    trx: Queryable,
    userIds: number[],
  ): Promise<{ stats: Map<number, ActivityStats>; awarded: number }> {
    const stats = await this.repository.activityStats(trx, userIds);
    const held = new Set(
      (await this.repository.earnedBadges(trx, userIds)).map((row) => `${row.user_id}:${row.badge_id}`),
    );
    const due: { userId: number; badgeId: string }[] = [];
    for (const [userId, userStats] of stats) {
      for (const badge of BADGES) {
        if (isAchieved(badge, userStats) && !held.has(`${userId}:${badge.id}`)) {
          due.push({ userId, badgeId: badge.id });
        }
      }
    }
    const inserted = await this.repository.insertBadges(trx, due);
    const notices = inserted.flatMap((row) => {
      const badge = BADGES_BY_ID.get(row.badge_id);
      return badge
        ? [
            {
              userId: row.user_id,
              type: 'badge.earned',
              title: `Badge earned: ${badge.name}`,
              body: `You earned the ${badge.name} badge. ${badge.description}`,
              data: { badgeId: badge.id, name: badge.name },
            },
          ]
        : [];
    });
    if (notices.length > 0) await this.notifications.notify(trx, notices);
    return { stats, awarded: inserted.length };
  }
}

import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { NotFoundError } from '../../platform/errors.js';
import { decodeCursor, encodeCursor, type PageOf } from '../../platform/http.js';
import { BADGES_BY_ID } from '../gamification/badges.js';
import { NO_CARD, type People } from './people.js';
import type { PerformanceRepository, SettledPositionRow } from './performance-repository.js';

/** Trending traders: activity and profit over the last TRENDING_WINDOW_DAYS days. */
export const TRENDING_WINDOW_DAYS = 7;
/** Score = trades × TRENDING_TRADE_WEIGHT + profit in cents: one trade weighs as much as 1.00 of profit. */
export const TRENDING_TRADE_WEIGHT = 100;

export interface ProfileStats {
  trades: number;
  volumeCents: number;
  realizedPnlCents: number;
  settledPositions: number;
  winningPositions: number;
  winRateBps: number | null;
  currentStreak: number;
}

export interface TrendingUser {
  rank: number;
  userId: string;
  username: string;
  displayName: string | null;
  avatarUrl: string | null;
  trades: number;
  volumeCents: number;
  profitCents: number;
  score: number;
}

/** Public profiles and trending traders, all derived from public activity; nothing private is exposed. */
export class ProfilesService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly performance: PerformanceRepository,
    private readonly people: People,
  ) {}

  async profile(username: string) {
    const user = await this.performance.findPublicUser(this.db, username);
    if (!user) throw new NotFoundError('User');
    // The level is computed first: computing it awards any badge now due, which the list below then shows.
    const level = await this.people.level(user.id);
    const [card, badges, totals, realizedPnlCents, settled] = await Promise.all([
      this.people.card(user.id),
      this.performance.earnedBadges(this.db, user.id),
      this.performance.tradeTotals(this.db, user.id),
      this.performance.realizedPnl(this.db, user.id),
      this.performance.settledPositions(this.db, user.id),
    ]);
    return {
      id: String(user.id),
      username: user.username,
      displayName: card.displayName,
      bio: card.bio,
      avatarUrl: card.avatarUrl,
      level,
      badges: badges.flatMap((row) => {
        const badge = BADGES_BY_ID.get(row.badge_id);
        return badge
          ? [
              {
                id: badge.id,
                name: badge.name,
                description: badge.description,
                earnedAt: row.earned_at.toISOString(),
              },
            ]
          : [];
      }),
      followers: card.followerCount,
      following: card.followingCount,
      joinedAt: user.created_at.toISOString(),
      stats: {
        trades: Number(totals.trades),
        volumeCents: Number(totals.volume_cents),
        realizedPnlCents,
        ...settledStats(settled),
      },
    };
  }

  async trending(page: {
    limit: number;
    cursor?: string | undefined;
  }): Promise<PageOf<TrendingUser> & { windowDays: number; from: string; to: string }> {
    const cursor = decodeCursor(page.cursor, 1);
    const offset = cursor ? Math.max(0, Math.trunc(Number(cursor[0])) || 0) : 0;
    const to = new Date();
    const from = new Date(to.getTime() - TRENDING_WINDOW_DAYS * 86_400_000);
    const rows = await this.performance.trending(
      this.db,
      { from, to },
      { tradeWeight: TRENDING_TRADE_WEIGHT, offset, limit: page.limit + 1 },
    );
    const more = rows.length > page.limit;
    const pageRows = rows.slice(0, page.limit);
    const cards = await this.people.cards(pageRows.map((row) => row.user_id));
    const data = pageRows.map((row, index) => ({
      rank: offset + index + 1,
      userId: String(row.user_id),
      username: row.username,
      ...(cards.get(row.user_id) ?? NO_CARD),
      trades: Number(row.trades),
      volumeCents: Number(row.volume_cents),
      profitCents: Number(row.pnl_cents),
      score: Number(row.score),
    }));
    return {
      data,
      nextCursor: more ? encodeCursor([offset + page.limit]) : null,
      windowDays: TRENDING_WINDOW_DAYS,
      from: from.toISOString(),
      to: to.toISOString(),
    };
  }
}

/**
 * Win rate over positions in settled YES/NO options (a position wins when its profit is above zero) and the
 * current streak: consecutive winning positions counted back from the most recently settled one.
 */
export function settledStats(
  positions: SettledPositionRow[],
): Pick<ProfileStats, 'settledPositions' | 'winningPositions' | 'winRateBps' | 'currentStreak'> {
  const wins = positions.filter((position) => Number(position.pnl_cents) > 0).length;
  let streak = 0;
  for (const position of positions) {
    if (Number(position.pnl_cents) <= 0) break;
    streak += 1;
  }
  return {
    settledPositions: positions.length,
    winningPositions: wins,
    winRateBps: positions.length === 0 ? null : Math.round((wins * 10_000) / positions.length),
    currentStreak: streak,
  };
}

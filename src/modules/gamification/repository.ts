import { type Expression, type SqlBool, sql } from 'kysely';
import type { Queryable } from '../../platform/db/types.js';
import { type ActivityStats, NO_ACTIVITY } from './badges.js';

/** Trades and settlements younger than this may still have companions with lower ids in flight. */
const COMMIT_LAG = sql`interval '5 seconds'`;

export interface CursorRow {
  name: string;
  last_id: number;
  last_at: Date;
}

export interface ScanBatch {
  /** Users touched by the rows read. */
  userIds: number[];
  /** Rows read that are old enough to move the cursor past, as the new cursor; null when none. */
  advanceTo: { lastId: number; lastAt: Date } | null;
  consumed: number;
}

/** Activity derived from trades, positions, the streak and referrals, plus badge rows and scan cursors. */
export class GamificationRepository {
  async activityStats(db: Queryable, userIds: number[]): Promise<Map<number, ActivityStats>> {
    const result = new Map<number, ActivityStats>();
    if (userIds.length === 0) return result;
    const { rows } = await sql<{
      user_id: number;
      trades: number;
      volume_cents: number;
      realized_profit_cents: number;
      longest_streak: number;
      streak_days: number;
      correct_predictions: number;
      qualified_referrals: number;
    }>`
      SELECT u.id AS user_id,
        coalesce(k.trades, 0) AS trades, coalesce(k.volume_cents, 0) AS volume_cents,
        coalesce(k.realized_pnl_cents, 0) AS realized_profit_cents, u.streak_longest AS longest_streak,
        s.streak_days, coalesce(k.winning_predictions, 0) AS correct_predictions, r.qualified_referrals
      FROM users u
      LEFT JOIN trader_totals k ON k.user_id = u.id
      CROSS JOIN LATERAL (
        SELECT count(*)::bigint AS streak_days
        FROM journal_entries WHERE user_id = u.id AND kind = 'streak_bonus'
      ) s
      CROSS JOIN LATERAL (
        SELECT count(*)::bigint AS qualified_referrals
        FROM users referred JOIN trader_totals rt ON rt.user_id = referred.id
        WHERE referred.referred_by = u.id AND rt.trades > 0
      ) r
      WHERE u.id IN (${sql.join(userIds)})`.execute(db);
    const placings = await this.tournamentPlacings(db, userIds);
    for (const row of rows) {
      const placing = placings.get(row.user_id);
      result.set(row.user_id, {
        ...NO_ACTIVITY,
        trades: Number(row.trades),
        volumeCents: Number(row.volume_cents),
        realizedProfitCents: Number(row.realized_profit_cents),
        longestStreak: Number(row.longest_streak),
        streakDays: Number(row.streak_days),
        correctPredictions: Number(row.correct_predictions),
        qualifiedReferrals: Number(row.qualified_referrals),
        tournamentPodiums: placing?.podiums ?? 0,
        tournamentWins: placing?.wins ?? 0,
      });
    }
    return result;
  }

  /**
   * Tournament standings come from the competitions area; until its results table exists (with user_id and
   * rank) every user simply has no placings.
   */
  private async hasTournamentResults(db: Queryable): Promise<boolean> {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'tournament_results'
        AND column_name IN ('user_id', 'rank')`.execute(db);
    return Number(rows[0]?.n ?? 0) === 2;
  }

  private async tournamentPlacings(
    db: Queryable,
    userIds: number[],
  ): Promise<Map<number, { podiums: number; wins: number }>> {
    const placings = new Map<number, { podiums: number; wins: number }>();
    if (!(await this.hasTournamentResults(db))) return placings;
    const { rows } = await sql<{ user_id: number; podiums: number; wins: number }>`
      SELECT user_id, count(*) FILTER (WHERE rank <= 3)::int AS podiums, count(*) FILTER (WHERE rank = 1)::int AS wins
      FROM tournament_results WHERE user_id IN (${sql.join(userIds)}) GROUP BY user_id`.execute(db);
    for (const row of rows)
      placings.set(row.user_id, { podiums: Number(row.podiums), wins: Number(row.wins) });
    return placings;
  }

  async earnedBadges(db: Queryable, userIds: number[]) {
    if (userIds.length === 0) return [];
    return db
      .selectFrom('user_badges')
      .select(['user_id', 'badge_id', 'earned_at'])
      .where('user_id', 'in', userIds)
      .orderBy('earned_at')
      .orderBy('badge_id')
      .execute();
  }

  /** Inserts the badges not yet held and returns only those this call inserted. */
  async insertBadges(db: Queryable, badges: { userId: number; badgeId: string }[]) {
    if (badges.length === 0) return [];
    return db
      .insertInto('user_badges')
      .values(badges.map((b) => ({ user_id: b.userId, badge_id: b.badgeId })))
      .onConflict((oc) => oc.columns(['user_id', 'badge_id']).doNothing())
      .returning(['user_id', 'badge_id', 'earned_at'])
      .execute();
  }

  async countBadges(db: Queryable, userId: number): Promise<number> {
    const row = await db
      .selectFrom('user_badges')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Claims a scan cursor for this transaction; null while another instance holds it. */
  claimCursor(db: Queryable, name: string): Promise<CursorRow | undefined> {
    return db
      .selectFrom('gamification_cursors')
      .selectAll()
      .where('name', '=', name)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
  }

  async moveCursor(db: Queryable, name: string, to: { lastId: number; lastAt: Date }): Promise<void> {
    await db
      .updateTable('gamification_cursors')
      .set({ last_id: to.lastId, last_at: to.lastAt })
      .where('name', '=', name)
      .execute();
  }

  /** Trades after the cursor: their users, and those users' referrers (whose referral badges move). */
  async tradesAfter(db: Queryable, cursor: CursorRow, limit: number): Promise<ScanBatch> {
    const rows = await db
      .selectFrom('trades as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .select([
        't.id',
        't.user_id',
        'u.referred_by',
        't.created_at',
        sql<boolean>`t.created_at <= now() - ${COMMIT_LAG}`.as('aged'),
      ])
      .where('t.id', '>', cursor.last_id)
      .orderBy('t.id')
      .limit(limit)
      .execute();
    return consume(rows, (row) =>
      row.referred_by === null ? [row.user_id] : [row.user_id, row.referred_by],
    );
  }

  /** Settled holdings after the cursor: their owners' correct predictions and profit moved. */
  async settlementsAfter(db: Queryable, cursor: CursorRow, limit: number): Promise<ScanBatch> {
    const rows = await db
      .selectFrom('position_settlements')
      .select(['id', 'user_id', 'created_at', sql<boolean>`created_at <= now() - ${COMMIT_LAG}`.as('aged')])
      .where('id', '>', cursor.last_id)
      .orderBy('id')
      .limit(limit)
      .execute();
    return consume(rows, (row) => [row.user_id]);
  }

  /** Users whose longest streak reached a streak badge they do not hold yet. */
  async streaksDueBadges(
    db: Queryable,
    streakBadges: readonly { id: string; days: number }[],
    limit: number,
  ) {
    if (streakBadges.length === 0) return [];
    const shortest = Math.min(...streakBadges.map((b) => b.days));
    const rows = await db
      .selectFrom('users as u')
      .select('u.id')
      .where('u.streak_longest', '>=', shortest)
      .where((eb) =>
        eb.or(
          streakBadges.map(
            (badge): Expression<SqlBool> =>
              eb.and([
                eb('u.streak_longest', '>=', badge.days),
                eb.not(
                  eb.exists(
                    eb
                      .selectFrom('user_badges as b')
                      .select('b.user_id')
                      .whereRef('b.user_id', '=', 'u.id')
                      .where('b.badge_id', '=', badge.id),
                  ),
                ),
              ]),
          ),
        ),
      )
      .orderBy('u.id')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  /** Users with a tournament placing whose placing badge is missing. */
  async placingsDueBadges(
    db: Queryable,
    badges: { podium: string; winner: string },
    limit: number,
  ): Promise<number[]> {
    if (!(await this.hasTournamentResults(db))) return [];
    const { rows } = await sql<{ user_id: number }>`
      SELECT DISTINCT r.user_id FROM tournament_results r
      WHERE (r.rank <= 3 AND NOT EXISTS (
               SELECT 1 FROM user_badges b WHERE b.user_id = r.user_id AND b.badge_id = ${badges.podium}))
         OR (r.rank = 1 AND NOT EXISTS (
               SELECT 1 FROM user_badges b WHERE b.user_id = r.user_id AND b.badge_id = ${badges.winner}))
      ORDER BY r.user_id
      LIMIT ${limit}`.execute(db);
    return rows.map((row) => row.user_id);
  }
}

/**
 * Reads a batch in id order: every row's users are looked at, but the cursor only passes rows older than the
 * commit lag and stops at the first younger one, so a transaction that commits a lower id late is still read
 * next time; younger rows are simply looked at again.
 */
function consume<Row extends { id: number; created_at: Date; aged: boolean }>(
  rows: Row[],
  usersOf: (row: Row) => number[],
): ScanBatch {
  const users = new Set<number>();
  let advanceTo: ScanBatch['advanceTo'] = null;
  let consumed = 0;
  let prefix = true;
  for (const row of rows) {
    for (const user of usersOf(row)) users.add(user);
    if (prefix && row.aged) {
      advanceTo = { lastId: row.id, lastAt: row.created_at };
      consumed += 1;
    } else {
      prefix = false;
    }
  }
  return { userIds: [...users], advanceTo, consumed };
}

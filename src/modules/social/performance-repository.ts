import { type RawBuilder, sql } from 'kysely';
import type { Queryable } from '../../platform/db/types.js';

export interface PerformanceRow {
  user_id: number;
  trades: number;
  volume_cents: number;
  cost_cents: number;
  pnl_cents: number;
}

export interface PerformanceFilter {
  from: Date;
  to: Date;
  userIds?: number[];
  eventIds?: number[];
}

export interface PublicUserRow {
  id: number;
  username: string;
  created_at: Date;
  streak_current: number;
  streak_last_day: string | null;
}

export interface SettledPositionRow {
  option_id: number;
  side: 'YES' | 'NO';
  settled_at: Date | null;
  pnl_cents: number;
}

/**
 * Trading performance derived from the trades table. The profit of a set of trades is the cash they moved
 * (sales minus purchases minus fees) plus the value of the shares they leave behind at their marks, by the
 * valuation rule (src/exchange/valuation.ts): what a share pays once resolved, else the side's last traded price
 * (an option with trades always has one).
 */
export class PerformanceRepository {
  async byUser(db: Queryable, filter: PerformanceFilter): Promise<PerformanceRow[]> {
    if (filter.userIds?.length === 0 || filter.eventIds?.length === 0) return [];
    const result = await sql<PerformanceRow>`
      SELECT w.user_id, sum(w.trades)::int AS trades, sum(w.volume)::bigint AS volume_cents,
        sum(w.cost)::bigint AS cost_cents, sum(w.cash + w.net * ${markCents()})::bigint AS pnl_cents
      FROM (${this.tradeGroups(filter)}) w
      JOIN options o ON o.id = w.option_id
      GROUP BY w.user_id`.execute(db);
    return result.rows;
  }

  /** Active, unsuspended traders of the window ranked by `trades × tradeWeight + profit in cents`. */
  async trending(
    db: Queryable,
    window: { from: Date; to: Date },
    rank: { tradeWeight: number; offset: number; limit: number },
  ): Promise<(PerformanceRow & { username: string; score: number })[]> {
    const result = await sql<PerformanceRow & { username: string; score: number }>`
      WITH perf AS (
        SELECT w.user_id, sum(w.trades)::int AS trades, sum(w.volume)::bigint AS volume_cents,
          sum(w.cost)::bigint AS cost_cents, sum(w.cash + w.net * ${markCents()})::bigint AS pnl_cents
        FROM (${this.tradeGroups(window)}) w
        JOIN options o ON o.id = w.option_id
        GROUP BY w.user_id
      )
      SELECT perf.*, u.username, (perf.trades * ${rank.tradeWeight}::bigint + perf.pnl_cents)::bigint AS score
      FROM perf JOIN users u ON u.id = perf.user_id
      WHERE u.suspended_at IS NULL
      ORDER BY score DESC, perf.pnl_cents DESC, u.id ASC
      LIMIT ${rank.limit} OFFSET ${rank.offset}`.execute(db);
    return result.rows;
  }

  private tradeGroups(filter: PerformanceFilter): RawBuilder<unknown> {
    const conditions = [sql`t.created_at >= ${filter.from}`, sql`t.created_at < ${filter.to}`];
    if (filter.userIds) conditions.push(sql`t.user_id IN (${sql.join(filter.userIds)})`);
    if (filter.eventIds) conditions.push(sql`t.event_id IN (${sql.join(filter.eventIds)})`);
    return sql`
      SELECT t.user_id, t.option_id, t.side, count(*) AS trades,
        sum(t.quantity * t.price_cents) AS volume,
        sum(CASE WHEN t.action = 'BUY' THEN t.quantity * t.price_cents + t.fee_cents ELSE 0 END) AS cost,
        sum(CASE WHEN t.action = 'SELL' THEN t.quantity * t.price_cents - t.fee_cents
                 ELSE -(t.quantity * t.price_cents) - t.fee_cents END) AS cash,
        sum(CASE WHEN t.action = 'BUY' THEN t.quantity ELSE -t.quantity END) AS net
      FROM trades t
      WHERE ${sql.join(conditions, sql` AND `)}
      GROUP BY t.user_id, t.option_id, t.side`;
  }

  findPublicUser(db: Queryable, username: string): Promise<PublicUserRow | undefined> {
    return db
      .selectFrom('users')
      .select(['id', 'username', 'created_at', 'streak_current', 'streak_last_day'])
      .where('username', '=', username)
      .executeTakeFirst();
  }

  earnedBadges(db: Queryable, userId: number) {
    return db
      .selectFrom('user_badges')
      .select(['badge_id', 'earned_at'])
      .where('user_id', '=', userId)
      .orderBy('earned_at')
      .orderBy('badge_id')
      .execute();
  }

  /** The trader's executions and notional traded, as the database keeps them (trader_totals). */
  async tradeTotals(db: Queryable, userId: number): Promise<{ trades: number; volume_cents: number }> {
    const row = await db
      .selectFrom('trader_totals')
      .select(['trades', 'volume_cents'])
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return { trades: Number(row?.trades ?? 0), volume_cents: Number(row?.volume_cents ?? 0) };
  }

  /** The trader's realized profit over all positions, as the database keeps it (trader_totals). */
  async realizedPnl(db: Queryable, userId: number): Promise<number> {
    const row = await db
      .selectFrom('trader_totals')
      .select('realized_pnl_cents')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(row?.realized_pnl_cents ?? 0);
  }

  /** The user's positions (option and side) in settled YES/NO options, most recently settled first. */
  async settledPositions(db: Queryable, userId: number): Promise<SettledPositionRow[]> {
    const result = await sql<SettledPositionRow>`
      SELECT t.option_id, t.side, e.settled_at,
        (sum(CASE WHEN t.action = 'SELL' THEN t.quantity * t.price_cents - t.fee_cents
                  ELSE -(t.quantity * t.price_cents) - t.fee_cents END)
         + sum(CASE WHEN t.action = 'BUY' THEN t.quantity ELSE -t.quantity END)
           * (CASE WHEN o.resolution = t.side THEN 100 ELSE 0 END))::bigint AS pnl_cents
      FROM trades t
      JOIN options o ON o.id = t.option_id
      JOIN events e ON e.id = t.event_id
      WHERE t.user_id = ${userId} AND e.status = 'settled' AND o.resolution IN ('YES', 'NO')
      GROUP BY t.option_id, t.side, e.settled_at, o.resolution
      ORDER BY e.settled_at DESC NULLS LAST, t.option_id DESC, t.side`.execute(db);
    return result.rows;
  }
}

/** Value in cents of one share of side `w.side` of option `o`, as documented on PerformanceRepository. */
function markCents(): RawBuilder<number> {
  const yes = sql`CASE WHEN o.resolution IS NULL THEN o.last_yes_price
    ELSE coalesce(o.yes_payout_cents, CASE o.resolution WHEN 'YES' THEN 100 WHEN 'NO' THEN 0 ELSE 50 END) END`;
  return sql<number>`coalesce(CASE w.side WHEN 'YES' THEN ${yes} ELSE 100 - (${yes}) END, 0)`;
}

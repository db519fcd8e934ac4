import { type RawBuilder, sql } from 'kysely';
import type { Queryable } from '../../platform/db/types.js';

/** What trading made of the markets, as the catalogue shows it: options' price histories, the traders' leaderboard. */
export class MarketFiguresRepository {
  /**
   * The last traded YES price per option, bucketed so each option has at most `points` points; each point is
   * stamped with the time of the trade that set it, never earlier than the first trade.
   */
  async priceHistory(
    db: Queryable,
    optionIds: number[],
    since: Date | null,
    points: number,
  ): Promise<{ option_id: number; t: Date; price: number }[]> {
    if (optionIds.length === 0) return [];
    const bounds = await db
      .selectFrom('fills')
      .select([sql<Date | null>`min(created_at)`.as('first'), sql<Date | null>`max(created_at)`.as('last')])
      .where('option_id', 'in', optionIds)
      .$if(since !== null, (q) => q.where('created_at', '>=', since as Date))
      .executeTakeFirst();
    if (!bounds?.first || !bounds.last) return [];
    const from = since ?? bounds.first;
    const spanSeconds = Math.max(1, (bounds.last.getTime() - from.getTime()) / 1000);
    const bucket = Math.max(1, Math.ceil(spanSeconds / points));
    const rows = await sql<{ option_id: number; t: Date; price: number }>`
      SELECT option_id, max(created_at) AS t, (array_agg(yes_price ORDER BY id DESC))[1] AS price
      FROM fills
      WHERE option_id = ANY(${sql.val(optionIds)}::bigint[]) AND created_at >= ${from}
      GROUP BY option_id, floor(extract(epoch FROM created_at) / ${bucket})
      ORDER BY option_id, t`.execute(db);
    return rows.rows;
  }

  /**
   * The top traders by one measure (defined in the API docs), suspended accounts left out, from the totals the
   * database keeps per trader (migration 190): the first rows of the measure's index, whatever the number of trades
   * and positions behind them. Profit ranks everyone with a realized result, losses included, so the board is never
   * empty while someone has sold or been paid.
   */
  async leaderboard(db: Queryable, measure: 'profit' | 'volume' | 'predictions', limit: number) {
    const [column, kept] = {
      profit: ['realized_pnl_cents', sql`t.positions_with_result > 0`],
      volume: ['volume_cents', sql`t.volume_cents > 0`],
      predictions: ['winning_predictions', sql`t.winning_predictions > 0`],
    }[measure] as [string, RawBuilder<unknown>];
    const value = sql.ref(`t.${column}`);
    const { rows } = await sql<{ user_id: number; username: string; value: number }>`
      SELECT t.user_id, u.username, ${value} AS value
      FROM trader_totals t JOIN users u ON u.id = t.user_id
      WHERE ${kept} AND u.suspended_at IS NULL
      ORDER BY ${value} DESC, t.user_id LIMIT ${limit}`.execute(db);
    return rows;
  }
}

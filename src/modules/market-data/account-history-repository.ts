import { sql } from 'kysely';
import type { SideText } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';
import type { Interval } from './candles.js';

/**
 * A user's own history, as the portfolio and its value over time read it: one order, the fills and settlements
 * (keyset-paginated), and what the value over time is built from (balances and holdings changed per step, the
 * holdings now, the options' marks at each step and the prices conversions booked).
 */
export class AccountHistoryRepository {
  /** One of a trader's orders (market or limit), with its option's names; undefined when it is not theirs. */
  userOrder(db: Queryable, userId: number, orderId: number) {
    return db
      .selectFrom('orders as o')
      .innerJoin('options as op', 'op.id', 'o.option_id')
      .innerJoin('events as e', 'e.id', 'op.event_id')
      .selectAll('o')
      .select(['e.slug as event_slug', 'e.title as event_title', 'op.label as option_label'])
      .where('o.id', '=', orderId)
      .where('o.user_id', '=', userId)
      .executeTakeFirst();
  }

  /** A trader's executions with the fill each belongs to, newest first. */
  userFills(
    db: Queryable,
    userId: number,
    filter: { optionId?: number | undefined; eventSlug?: string | undefined; orderId?: number | undefined },
    beforeId: number | null,
    limit: number,
  ) {
    let query = db
      .selectFrom('trades as t')
      .innerJoin('fills as f', 'f.id', 't.fill_id')
      .innerJoin('options as o', 'o.id', 't.option_id')
      .innerJoin('events as e', 'e.id', 't.event_id')
      .select([
        't.id',
        't.fill_id',
        't.order_id',
        't.option_id',
        'e.slug as event_slug',
        'e.title as event_title',
        'o.label as option_label',
        't.side',
        't.action',
        't.liquidity',
        't.price_cents',
        'f.yes_price',
        't.quantity',
        't.fee_cents',
        't.created_at',
      ])
      .where('t.user_id', '=', userId)
      .orderBy('t.id', 'desc')
      .limit(limit + 1);
    if (filter.optionId !== undefined) query = query.where('t.option_id', '=', filter.optionId);
    if (filter.eventSlug !== undefined) query = query.where('e.slug', '=', filter.eventSlug);
    if (filter.orderId !== undefined) query = query.where('t.order_id', '=', filter.orderId);
    if (beforeId !== null) query = query.where('t.id', '<', beforeId);
    return query.execute();
  }

  /** What a trader was paid when options settled, newest first. */
  userSettlements(
    db: Queryable,
    userId: number,
    filter: { eventSlug?: string | undefined },
    beforeId: number | null,
    limit: number,
  ) {
    let query = db
      .selectFrom('position_settlements as s')
      .innerJoin('options as o', 'o.id', 's.option_id')
      .innerJoin('events as e', 'e.id', 's.event_id')
      .select([
        's.id',
        's.option_id',
        'e.slug as event_slug',
        'e.title as event_title',
        'o.label as option_label',
        's.side',
        's.outcome',
        's.quantity',
        's.payout_cents',
        's.pnl_cents',
        's.created_at',
      ])
      .where('s.user_id', '=', userId)
      .orderBy('s.id', 'desc')
      .limit(limit + 1);
    if (filter.eventSlug !== undefined) query = query.where('e.slug', '=', filter.eventSlug);
    if (beforeId !== null) query = query.where('s.id', '<', beforeId);
    return query.execute();
  }

  async userCreatedAt(db: Queryable, userId: number): Promise<Date | undefined> {
    const row = await db.selectFrom('users').select('created_at').where('id', '=', userId).executeTakeFirst();
    return row?.created_at;
  }

  /**
   * The movements of a trader's cash and reserved accounts since `since`, summed per `stepMs` slot and account. The
   * transit account (cash on its way to the markets and back: src/exchange/collateral.ts) counts as cash.
   */
  async balanceChanges(db: Queryable, userId: number, since: Date, stepMs: number) {
    const { rows } = await sql<{ slot: string; kind: 'cash' | 'reserved'; amount: string }>`
      SELECT floor(extract(epoch FROM j.created_at) * 1000 / ${stepMs}) AS slot,
        CASE a.kind WHEN 'reserved' THEN 'reserved' ELSE 'cash' END AS kind, sum(p.amount) AS amount
      FROM ledger_accounts a
      JOIN postings p ON p.account_id = a.id
      JOIN journal_entries j ON j.id = p.entry_id
      WHERE a.user_id = ${userId} AND a.kind IN ('cash', 'reserved', 'transit') AND j.created_at >= ${since}
      GROUP BY 1, 2`.execute(db);
    return rows.map((row) => ({ slot: Number(row.slot), kind: row.kind, amount: Number(row.amount) }));
  }

  /**
   * The changes to a trader's holdings since `since`, summed per `stepMs` slot, option and side: bought minus sold
   * shares, and the shares paid out at settlement (negative).
   */
  async holdingChanges(db: Queryable, userId: number, since: Date, stepMs: number) {
    const { rows } = await sql<{ slot: string; option_id: string; side: SideText; quantity: string }>`
      SELECT slot, option_id, side, sum(quantity) AS quantity FROM (
        SELECT floor(extract(epoch FROM created_at) * 1000 / ${stepMs}) AS slot, option_id, side,
          CASE action WHEN 'BUY' THEN quantity ELSE -quantity END AS quantity
        FROM trades WHERE user_id = ${userId} AND created_at >= ${since}
        UNION ALL
        SELECT floor(extract(epoch FROM created_at) * 1000 / ${stepMs}), option_id, side, -quantity
        FROM position_settlements WHERE user_id = ${userId} AND created_at >= ${since}
        UNION ALL
        SELECT floor(extract(epoch FROM c.created_at) * 1000 / ${stepMs}), (leg->>'optionId')::bigint,
          leg->>'side', (leg->>'quantity')::bigint
        FROM conversions c CROSS JOIN LATERAL jsonb_array_elements(c.legs) AS leg
        WHERE c.user_id = ${userId} AND c.created_at >= ${since}
      ) changes
      GROUP BY 1, 2, 3`.execute(db);
    return rows.map((row) => ({
      slot: Number(row.slot),
      optionId: Number(row.option_id),
      side: row.side,
      quantity: Number(row.quantity),
    }));
  }

  /** A trader's holdings now (settled ones included, at zero), with how each option resolved and when. */
  async holdings(db: Queryable, userId: number) {
    return (
      db
        .selectFrom('positions as p')
        // Each holding's option by its key (see TradingReadsRepository.holdingGroups).
        .innerJoinLateral(
          (eb) =>
            eb
              .selectFrom('options as o')
              .innerJoin('events as e', 'e.id', 'o.event_id')
              .select(['o.resolution', 'o.yes_payout_cents', 'e.resolved_at'])
              .whereRef('o.id', '=', 'p.option_id')
              .limit(1)
              .as('o'),
          (join) => join.onTrue(),
        )
        .select(['p.option_id', 'p.side', 'p.quantity'])
        .selectAll('o')
        .where('p.user_id', '=', userId)
        .execute()
    );
  }

  /**
   * The marks of these options from `since` on: the close of every `interval` candle starting at or after it, and
   * of the last one before it.
   */
  async marks(db: Queryable, optionIds: number[], interval: Interval, since: Date) {
    if (optionIds.length === 0) return [];
    const { rows } = await sql<{ option_id: string; bucket: string; close: number }>`
      SELECT option_id, extract(epoch FROM bucket) * 1000 AS bucket, close FROM candles
      WHERE option_id = ANY(${optionIds}::bigint[]) AND interval = ${interval} AND bucket >= ${since}
      UNION ALL
      SELECT o.id, extract(epoch FROM b.bucket) * 1000, b.close
      FROM unnest(${optionIds}::bigint[]) AS o(id)
      CROSS JOIN LATERAL (SELECT bucket, close FROM candles WHERE option_id = o.id AND interval = ${interval}
        AND bucket < ${since} ORDER BY bucket DESC LIMIT 1) b
      ORDER BY 2`.execute(db);
    return rows.map((row) => ({
      optionId: Number(row.option_id),
      bucket: Number(row.bucket),
      close: row.close,
    }));
  }

  /**
   * The YES prices conversions booked these options at from `since` on, and the last one before it, oldest first:
   * the marks of options that never traded (src/exchange/valuation.ts).
   */
  async conversionMarks(db: Queryable, optionIds: number[], since: Date) {
    if (optionIds.length === 0) return [];
    const { rows } = await sql<{ option_id: string; at: string; yes_cents: number }>`
      WITH legs AS (
        SELECT o.id AS option_id, c.id, c.created_at,
          CASE leg->>'side' WHEN 'YES' THEN (leg->>'priceCents')::int ELSE 100 - (leg->>'priceCents')::int END
            AS yes_cents
        FROM options o
        JOIN conversions c ON c.event_id = o.event_id
        CROSS JOIN LATERAL jsonb_array_elements(c.legs) AS leg
        WHERE o.id = ANY(${optionIds}::bigint[]) AND (leg->>'optionId')::bigint = o.id
      )
      SELECT option_id, extract(epoch FROM created_at) * 1000 AS at, yes_cents FROM (
        (SELECT * FROM legs WHERE created_at >= ${since})
        UNION ALL
        (SELECT DISTINCT ON (option_id) * FROM legs WHERE created_at < ${since} ORDER BY option_id, id DESC)
      ) marks
      ORDER BY at, id`.execute(db);
    return rows.map((row) => ({
      optionId: Number(row.option_id),
      at: Number(row.at),
      yesCents: Number(row.yes_cents),
    }));
  }
}

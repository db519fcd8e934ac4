import { sql } from 'kysely';
import type { BookSide } from '../../exchange/order-book.js';
import type { EventStatus, SideText } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';
import type { HouseMakerColumns } from '../trading/repository.js';
import type { CandleRow, Interval } from './candles.js';

/** A row of the public tape: one execution, as its taker made it. */
export interface TapeRow {
  id: number;
  option_id: number;
  yes_price: number;
  quantity: number;
  taker_side: SideText;
  taker_action: 'BUY' | 'SELL';
  created_at: Date;
}

export interface TickerRow extends HouseMakerColumns {
  id: number;
  event_slug: string;
  label: string;
  event_status: EventStatus;
  last_yes_price: number | null;
  open_interest: number;
  levels: [BookSide, number, number, number][] | null;
  volume_24h_shares: number;
  volume_24h_cents: number;
  price_24h_ago: number | null;
}

/** Which options a ticker read shows: every option of an open market, or the named ones (of any public market). */
export interface TickerFilter {
  eventSlug?: string | undefined;
  optionIds?: number[] | undefined;
}

/** One bucket's movement of a trader's money or holdings, for portfolio history. */
export interface SlotChange {
  slot: number;
  amount: number;
}

const PUBLIC = sql`e.status <> 'draft'`;

/** Market data: candles, tickers, the public tape, and a trader's fills, settlements and history. */
export class MarketDataRepository {
  /** Adds a committed change's candles to the stored ones (inside its transaction, under the option's lock). */
  async recordCandles(
    db: Queryable,
    optionId: number,
    candles: { interval: Interval; row: CandleRow }[],
  ): Promise<void> {
    if (candles.length === 0) return;
    const col = <K extends keyof CandleRow>(key: K) => candles.map((c) => c.row[key]);
    await sql`
      INSERT INTO candles AS c (option_id, interval, bucket, open, high, low, close, volume_shares, volume_cents)
      SELECT ${optionId}::bigint, v.interval, to_timestamp(v.bucket / 1000.0), v.open, v.high, v.low, v.close,
        v.volume_shares, v.volume_cents
      FROM unnest(${candles.map((c) => c.interval)}::text[], ${col('bucket')}::float8[], ${col('open')}::int[],
        ${col('high')}::int[], ${col('low')}::int[], ${col('close')}::int[], ${col('volumeShares')}::bigint[],
        ${col('volumeCents')}::bigint[]) AS v(interval, bucket, open, high, low, close, volume_shares, volume_cents)
      ON CONFLICT (option_id, interval, bucket) DO UPDATE SET high = greatest(c.high, excluded.high),
        low = least(c.low, excluded.low), close = excluded.close,
        volume_shares = c.volume_shares + excluded.volume_shares,
        volume_cents = c.volume_cents + excluded.volume_cents`.execute(db);
  }

  /**
   * The stored candles of a public option in [from, to) and the close before `from`, in one statement; undefined
   * when there is no such option.
   */
  async candles(db: Queryable, optionId: number, interval: Interval, from: Date, to: Date) {
    const { rows } = await sql<{
      previous_close: number | null;
      rows: [number, number, number, number, number, number, number][] | null;
    }>`
      SELECT
        (SELECT close FROM candles WHERE option_id = o.id AND interval = ${interval} AND bucket < ${from}
          ORDER BY bucket DESC LIMIT 1) AS previous_close,
        (SELECT json_agg(json_build_array(extract(epoch FROM bucket) * 1000, open, high, low, close, volume_shares,
            volume_cents) ORDER BY bucket)
          FROM candles WHERE option_id = o.id AND interval = ${interval} AND bucket >= ${from} AND bucket < ${to}
        ) AS rows
      FROM options o JOIN events e ON e.id = o.event_id
      WHERE o.id = ${optionId} AND ${PUBLIC}`.execute(db);
    const row = rows[0];
    if (!row) return undefined;
    return {
      previousClose: row.previous_close,
      rows: (row.rows ?? []).map(([bucket, open, high, low, close, volumeShares, volumeCents]) => ({
        bucket: Number(bucket),
        open,
        high,
        low,
        close,
        volumeShares: Number(volumeShares),
        volumeCents: Number(volumeCents),
      })),
    };
  }

  /**
   * What a ticker shows of each option, in one statement: its resting levels, house maker, last price, open
   * interest, and from the minute candles its volume over the last 24 hours and its price 24 hours ago.
   */
  async tickers(db: Queryable, filter: TickerFilter): Promise<TickerRow[]> {
    const where =
      filter.optionIds !== undefined
        ? sql`o.id = ANY(${filter.optionIds}::bigint[]) AND ${PUBLIC}`
        : filter.eventSlug !== undefined
          ? sql`e.slug = ${filter.eventSlug} AND ${PUBLIC}`
          : sql`e.status = 'open'`;
    const { rows } = await sql<TickerRow>`
      SELECT o.id, e.slug AS event_slug, o.label, e.status AS event_status, o.last_yes_price, o.liquidity_b,
        o.amm_offset, o.amm_yes_shares, o.amm_no_shares,
        CASE WHEN e.status = 'settled' THEN 0 ELSE o.pairs_minted - o.pairs_merged END AS open_interest,
        (SELECT json_agg(json_build_array(l.book_side, l.book_price, l.quantity, l.orders)) FROM (
          SELECT book_side, book_price, sum(quantity - filled_quantity) AS quantity, count(*) AS orders
          FROM orders WHERE option_id = o.id AND status IN ('open', 'partially_filled')
          GROUP BY book_side, book_price) l) AS levels,
        v.volume_shares AS volume_24h_shares, v.volume_cents AS volume_24h_cents,
        (SELECT close FROM candles WHERE option_id = o.id AND interval = '1m'
          AND bucket < now() - interval '24 hours' ORDER BY bucket DESC LIMIT 1) AS price_24h_ago
      FROM options o JOIN events e ON e.id = o.event_id
      CROSS JOIN LATERAL (
        SELECT coalesce(sum(volume_shares), 0) AS volume_shares, coalesce(sum(volume_cents), 0) AS volume_cents
        FROM candles WHERE option_id = o.id AND interval = '1m' AND bucket >= now() - interval '24 hours') v
      WHERE ${where}
      ORDER BY e.id DESC, o.sort_order, o.id`.execute(db);
    return rows.map((row) => ({
      ...row,
      open_interest: Number(row.open_interest),
      volume_24h_shares: Number(row.volume_24h_shares),
      volume_24h_cents: Number(row.volume_24h_cents),
    }));
  }

  /** The public option, or undefined. */
  async publicOption(db: Queryable, optionId: number) {
    return db
      .selectFrom('options as o')
      .innerJoin('events as e', 'e.id', 'o.event_id')
      .select(['o.id', 'o.event_id'])
      .where('o.id', '=', optionId)
      .where('e.status', '<>', 'draft')
      .executeTakeFirst();
  }

  /** The public event's id and options, or undefined. */
  async publicEvent(db: Queryable, slug: string) {
    const event = await db
      .selectFrom('events')
      .select('id')
      .where('slug', '=', slug)
      .where('status', '<>', 'draft')
      .executeTakeFirst();
    if (!event) return undefined;
    const options = await db.selectFrom('options').select('id').where('event_id', '=', event.id).execute();
    return { id: event.id, optionIds: options.map((o) => o.id) };
  }

  /** Executions of these options, newest first (before a fill id when paging). */
  async tape(db: Queryable, optionIds: number[], beforeId: number | null, limit: number): Promise<TapeRow[]> {
    if (optionIds.length === 0) return [];
    const { rows } = await sql<TapeRow>`
      SELECT f.id, f.option_id, f.yes_price, f.quantity, f.created_at, t.side AS taker_side, t.action AS taker_action
      FROM fills f JOIN orders t ON t.id = f.taker_order_id
      WHERE f.option_id = ANY(${optionIds}::bigint[]) AND (${beforeId}::bigint IS NULL OR f.id < ${beforeId}::bigint)
      ORDER BY f.id DESC LIMIT ${limit + 1}`.execute(db);
    return rows.map((row) => ({ ...row, id: Number(row.id), option_id: Number(row.option_id) }));
  }

  /** A trader's executions with the fill each belongs to, newest first. */
  userFills(
    db: Queryable,
    userId: number,
    filter: { optionId?: number | undefined; eventSlug?: string | undefined },
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

  /** The movements of a trader's cash and reserved accounts since `since`, summed per `stepMs` slot and account. */
  async balanceChanges(db: Queryable, userId: number, since: Date, stepMs: number) {
    const { rows } = await sql<{ slot: string; kind: 'cash' | 'reserved'; amount: string }>`
      SELECT floor(extract(epoch FROM j.created_at) * 1000 / ${stepMs}) AS slot, a.kind, sum(p.amount) AS amount
      FROM ledger_accounts a
      JOIN postings p ON p.account_id = a.id
      JOIN journal_entries j ON j.id = p.entry_id
      WHERE a.user_id = ${userId} AND a.kind IN ('cash', 'reserved') AND j.created_at >= ${since}
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
    return db
      .selectFrom('positions as p')
      .innerJoin('options as o', 'o.id', 'p.option_id')
      .innerJoin('events as e', 'e.id', 'o.event_id')
      .select(['p.option_id', 'p.side', 'p.quantity', 'o.resolution', 'e.resolved_at'])
      .where('p.user_id', '=', userId)
      .execute();
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
}

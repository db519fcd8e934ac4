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
  exclusive: boolean;
  event_liquidity_b: number;
  /** An exclusive event's maker inventory in each of its options: [optionId, offset, YES shares, NO shares]. */
  makers: [number, number, number, number][] | null;
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

/** What a quote reads of an option's market besides its resting orders: the house maker and whether it trades. */
export interface QuoteMarketRow extends HouseMakerColumns {
  id: number;
  book_version: number;
  event_status: EventStatus;
  closes_at: Date;
  exclusive: boolean;
  event_liquidity_b: number;
  /** An exclusive event's maker inventory in each of its options: [optionId, offset, YES shares, NO shares]. */
  makers: [number, number, number, number][] | null;
  db_now: Date;
}

/** One bucket's movement of a trader's money or holdings, for portfolio history. */
export interface SlotChange {
  slot: number;
  amount: number;
}

const PUBLIC = sql`e.status <> 'draft'`;

/** Market data: candles, tickers, the public tape, and a trader's fills, settlements and history. */
export class MarketDataRepository {
  /**
   * Adds a transaction's candles, of every option it changed, to the stored ones in one statement (inside the
   * transaction, under the options' locks). One candle per option, interval and bucket.
   */
  async recordCandles(
    db: Queryable,
    candles: { optionId: number; interval: Interval; row: CandleRow }[],
  ): Promise<void> {
    if (candles.length === 0) return;
    const col = <K extends keyof CandleRow>(key: K) => candles.map((c) => c.row[key]);
    await sql`
      INSERT INTO candles AS c (option_id, interval, bucket, open, high, low, close, volume_shares, volume_cents)
      SELECT v.option_id, v.interval, to_timestamp(v.bucket / 1000.0), v.open, v.high, v.low, v.close,
        v.volume_shares, v.volume_cents
      FROM unnest(${candles.map((c) => c.optionId)}::bigint[], ${candles.map((c) => c.interval)}::text[],
        ${col('bucket')}::float8[], ${col('open')}::int[], ${col('high')}::int[], ${col('low')}::int[],
        ${col('close')}::int[], ${col('volumeShares')}::bigint[], ${col('volumeCents')}::bigint[])
        AS v(option_id, interval, bucket, open, high, low, close, volume_shares, volume_cents)
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
        o.amm_offset, o.amm_yes_shares, o.amm_no_shares, e.exclusive, e.liquidity_b AS event_liquidity_b,
        CASE WHEN e.exclusive AND e.status = 'open' THEN (
          SELECT json_agg(json_build_array(s.id, s.amm_offset, s.amm_yes_shares, s.amm_no_shares) ORDER BY s.id)
          FROM options s WHERE s.event_id = e.id) END AS makers,
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

  /**
   * A public option's market as an order on it would be decided: its event's state and closing time, the house
   * maker's inventory (every option's, for an exclusive event's one maker) and the database's clock.
   */
  async quoteMarket(db: Queryable, optionId: number): Promise<QuoteMarketRow | undefined> {
    const { rows } = await sql<QuoteMarketRow>`
      SELECT o.id, o.book_version, o.liquidity_b, o.amm_offset, o.amm_yes_shares, o.amm_no_shares,
        e.status AS event_status, e.closes_at, e.exclusive, e.liquidity_b AS event_liquidity_b, now() AS db_now,
        CASE WHEN e.exclusive THEN (
          SELECT json_agg(json_build_array(s.id, s.amm_offset, s.amm_yes_shares, s.amm_no_shares) ORDER BY s.id)
          FROM options s WHERE s.event_id = e.id) END AS makers
      FROM options o JOIN events e ON e.id = o.event_id
      WHERE o.id = ${optionId} AND ${PUBLIC}`.execute(db);
    const row = rows[0];
    return row && { ...row, book_version: Number(row.book_version) };
  }

  /** An option's resting orders in time order (ids rise with time), as its book holds them. */
  restingOrders(db: Queryable, optionId: number) {
    return db
      .selectFrom('orders')
      .selectAll()
      .where('option_id', '=', optionId)
      .where('status', 'in', ['open', 'partially_filled'])
      .orderBy('id')
      .execute();
  }

  /**
   * The cash an order's collateral would be set aside from now: the cash account's balance and what markets gave
   * back that no collateral step has taken in yet (as that step counts it).
   */
  async cashForCollateral(db: Queryable, userId: number): Promise<number> {
    const { rows } = await sql<{ cents: string | null }>`
      SELECT (SELECT balance FROM ledger_accounts WHERE kind = 'cash' AND user_id = ${userId})
        + (SELECT coalesce(sum(amount_cents), 0) FROM collateral_returns WHERE user_id = ${userId}) AS cents`.execute(
      db,
    );
    return Number(rows[0]?.cents ?? 0);
  }

  /** A trader's positions (both sides) in one option. */
  positionsIn(db: Queryable, userId: number, optionId: number) {
    return db
      .selectFrom('positions')
      .selectAll()
      .where('user_id', '=', userId)
      .where('option_id', '=', optionId)
      .execute();
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
}

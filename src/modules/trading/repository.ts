import { type Selectable, sql } from 'kysely';
import { numberArray } from '../../platform/db/arrays.js';
import type {
  OrderStatus,
  OrdersTable,
  PositionsTable,
  SideText,
  TradesTable,
} from '../../platform/db/schema.js';
import { takenIds } from '../../platform/db/sequences.js';
import { asLockTimeout, type Queryable } from '../../platform/db/types.js';
import { type DecidedRows, writeDecidedRows } from './batch-statement.js';

export type OrderRow = Selectable<OrdersTable>;
export type PositionRow = Selectable<PositionsTable>;
export type TradeRow = Selectable<TradesTable>;

/** Which of a user's resting orders a cancel-all takes: any of these narrow it. */
export interface RestingOrderFilter {
  optionId?: number | undefined;
  /** An unknown slug takes nothing. */
  eventSlug?: string | undefined;
  side?: SideText | undefined;
  action?: 'BUY' | 'SELL' | undefined;
  /** The credential that placed them (a dead man's switch). */
  placedBy?: string | undefined;
  /** Only those placed before this moment (the database's clock). */
  placedBefore?: Date | undefined;
}

export const OPEN_STATUSES: OrderStatus[] = ['open', 'partially_filled'];

/** The columns of an option that hold its house market maker. */
export interface HouseMakerColumns {
  liquidity_b: number;
  amm_offset: number;
  amm_yes_shares: number;
  amm_no_shares: number;
}

/**
 * The market an order belongs to: what owns the state its decision shares, and so what its queue and lock are keyed
 * on. An independent option is a market of its own; an exclusive event's options are one market, tied together by
 * the event's one house maker and its conversion pool.
 */
export type MarketRef = { kind: 'option'; optionId: number } | { kind: 'event'; eventId: number };

export function marketKey(ref: MarketRef): string {
  return ref.kind === 'option' ? `option:${ref.optionId}` : `event:${ref.eventId}`;
}

/** An option of a market, as read under the market's lock. */
export interface LockedOption {
  id: number;
  event_id: number;
  label: string;
  liquidity_b: number;
  amm_offset: number;
  amm_yes_shares: number;
  amm_no_shares: number;
  pool_yes_shares: number;
  pool_no_shares: number;
  last_yes_price: number | null;
  book_version: number;
  /**
   * Whether a position in the option has a stop-loss or a take-profit. Read under the option's lock, which setting
   * one takes too, so it holds until the transaction ends.
   */
  has_protections: boolean;
}

/** A market under its lock: its options in id order, with their event's state. */
export interface LockedMarket {
  ref: MarketRef;
  eventId: number;
  slug: string;
  title: string;
  eventStatus: string;
  closesAt: Date;
  exclusive: boolean;
  /** The house maker's liquidity of an exclusive event. */
  eventLiquidityCents: number;
  /** The transaction's clock, for rows written in memory first. */
  dbNow: Date;
  options: LockedOption[];
}

export class TradingRepository {
  /** Whether an event exists, and whether it is exclusive. */
  eventKind(db: Queryable, eventId: number): Promise<{ exclusive: boolean } | undefined> {
    return db.selectFrom('events').select('exclusive').where('id', '=', eventId).executeTakeFirst();
  }

  /** Which market an option trades in: its own, or its exclusive event's. */
  async marketOf(db: Queryable, optionId: number): Promise<MarketRef | undefined> {
    const row = await db
      .selectFrom('options as o')
      .innerJoin('events as e', 'e.id', 'o.event_id')
      .select(['o.event_id', 'e.exclusive'])
      .where('o.id', '=', optionId)
      .executeTakeFirst();
    if (!row) return undefined;
    return row.exclusive ? { kind: 'event', eventId: row.event_id } : { kind: 'option', optionId };
  }

  /** Takes one market's lock (see `lockMarkets`); undefined when no such option or event. */
  async lockMarket(db: Queryable, ref: MarketRef): Promise<LockedMarket | undefined> {
    const [market] = await this.lockMarkets(db, [ref]);
    return market;
  }

  /**
   * Takes markets' locks: the row locks of their options, in one statement, in ascending option id (so that no two
   * writers ever wait on each other in a circle). Every change to a book (orders, cancels, expiry, close, conversions,
   * settlement) runs under its market's lock, so each market's decisions are serialised across all instances. The
   * markets found, in the order asked (one that does not exist is left out).
   */
  async lockMarkets(db: Queryable, refs: MarketRef[]): Promise<LockedMarket[]> {
    const optionIds = refs.flatMap((ref) => (ref.kind === 'option' ? [ref.optionId] : []));
    const eventIds = refs.flatMap((ref) => (ref.kind === 'event' ? [ref.eventId] : []));
    const { rows } = await this.lockRows(db, optionIds, eventIds);
    return refs.flatMap((ref) => {
      const own = rows.filter((row) =>
        ref.kind === 'option' ? Number(row.id) === ref.optionId : Number(row.event_id) === ref.eventId,
      );
      return own.length > 0 ? [lockedMarketOf(ref, own)] : [];
    });
  }

  /** The rows of `lockMarkets`, under their locks; a wait past statement_timeout is reported as a lock timeout. */
  private lockRows(db: Queryable, optionIds: number[], eventIds: number[]) {
    return sql<LockedRow>`
      SELECT o.id, o.event_id, o.label, o.liquidity_b, o.amm_offset, o.amm_yes_shares, o.amm_no_shares,
        o.pool_yes_shares, o.pool_no_shares, o.last_yes_price, o.book_version, e.status AS event_status, e.closes_at,
        e.slug, e.title, e.exclusive, e.liquidity_b AS event_liquidity_b, now() AS db_now,
        EXISTS (SELECT FROM positions p WHERE p.option_id = o.id
          AND (p.stop_loss_bps IS NOT NULL OR p.take_profit_bps IS NOT NULL)) AS has_protections
      FROM options o JOIN events e ON e.id = o.event_id
      WHERE o.id = ANY(${numberArray(optionIds)}::bigint[]) OR o.event_id = ANY(${numberArray(eventIds)}::bigint[])
      ORDER BY o.id
      FOR UPDATE OF o`
      .execute(db)
      .catch((error: unknown) => {
        throw asLockTimeout(error);
      });
  }

  /**
   * In one round trip: spends the holds of the requests being decided (deletes their rows: each is spent once) and
   * takes `count` order ids from the orders' identity sequence, in order. The holds that were still there.
   */
  async spendHoldsAndTakeOrderIds(
    db: Queryable,
    holdIds: number[],
    count: number,
  ): Promise<{ spent: Set<number>; ids: number[] }> {
    const { rows } = await sql<{ spent: (number | string)[] | null; ids: (number | string)[] | null }>`
      WITH spent AS (
        DELETE FROM collateral_holds WHERE id = ANY(${numberArray(holdIds)}::bigint[]) RETURNING id
      )
      SELECT (SELECT array_agg(id) FROM spent) AS spent, ${takenIds('orders', count)} AS ids`.execute(db);
    const row = rows[0];
    return { spent: new Set((row?.spent ?? []).map(Number)), ids: (row?.ids ?? []).map(Number) };
  }

  /** Records what markets gave back to users (collateral.ts), one row a user. */
  async insertReturns(db: Queryable, returns: { userId: number; cents: number }[]): Promise<void> {
    if (returns.length === 0) return;
    await sql`
      INSERT INTO collateral_returns (user_id, amount_cents)
      SELECT * FROM unnest(${numberArray(returns.map((r) => r.userId))}::bigint[],
        ${numberArray(returns.map((r) => r.cents))}::bigint[])`.execute(db);
  }

  /** Takes ids for a decision's fills and trades from their sequences, each in order. */
  async takeFillAndTradeIds(
    db: Queryable,
    fills: number,
    trades: number,
  ): Promise<{ fillIds: number[]; tradeIds: number[] }> {
    if (fills === 0 && trades === 0) return { fillIds: [], tradeIds: [] };
    const { rows } = await sql<{
      fill_ids: (number | string)[] | null;
      trade_ids: (number | string)[] | null;
    }>`
      SELECT ${takenIds('fills', fills)} AS fill_ids, ${takenIds('trades', trades)} AS trade_ids`.execute(db);
    const row = rows[0];
    return { fillIds: (row?.fill_ids ?? []).map(Number), tradeIds: (row?.trade_ids ?? []).map(Number) };
  }

  /**
   * Writes what a decision decided, in one statement (batch-statement.ts). Returns each changed option's book
   * version as written.
   */
  writeBatch(db: Queryable, batch: DecidedRows): Promise<Map<number, number>> {
    return writeDecidedRows(db, batch);
  }

  /** Records conversions, in order; returns their ids. */
  async insertConversions(
    db: Queryable,
    rows: {
      id: number;
      userId: number;
      eventId: number;
      kind: 'convert' | 'split' | 'merge';
      quantity: number;
      optionIds: number[];
      cashCents: number;
      legs: unknown;
      createdAt: Date;
    }[],
  ): Promise<void> {
    if (rows.length === 0) return;
    await sql`
      INSERT INTO conversions (id, user_id, event_id, kind, quantity, option_ids, cash_cents, legs, created_at)
      OVERRIDING SYSTEM VALUE
      SELECT v.id, v.user_id, v.event_id, v.kind, v.quantity,
        ARRAY(SELECT jsonb_array_elements_text(v.option_ids)::bigint), v.cash_cents, v.legs, v.created_at
      FROM unnest(${rows.map((r) => r.id)}::bigint[], ${rows.map((r) => r.userId)}::bigint[],
        ${rows.map((r) => r.eventId)}::bigint[], ${rows.map((r) => r.kind)}::text[], ${rows.map((r) => r.quantity)}::bigint[],
        ${rows.map((r) => JSON.stringify(r.optionIds))}::jsonb[], ${rows.map((r) => r.cashCents)}::bigint[],
        ${rows.map((r) => JSON.stringify(r.legs))}::jsonb[], ${rows.map((r) => r.createdAt)}::timestamptz[])
        AS v(id, user_id, event_id, kind, quantity, option_ids, cash_cents, legs, created_at)`.execute(db);
  }

  /** Takes `count` conversion ids from their sequence, in order. */
  async takeConversionIds(db: Queryable, count: number): Promise<number[]> {
    if (count === 0) return [];
    const { rows } = await sql<{ ids: (number | string)[] | null }>`
      SELECT ${takenIds('conversions', count)} AS ids`.execute(db);
    return (rows[0]?.ids ?? []).map(Number);
  }

  /**
   * In one statement, the orders books in memory need: every resting order of the options in `whole`, and the
   * orders of each option in `since` written after the book version it stands at. In id order.
   */
  async bookRows(
    db: Queryable,
    whole: number[],
    since: { optionId: number; version: number }[],
  ): Promise<OrderRow[]> {
    const { rows } = await sql<OrderRow>`
      SELECT * FROM orders WHERE option_id = ANY(${numberArray(whole)}::bigint[])
        AND status IN ('open', 'partially_filled')
      UNION ALL
      SELECT o.* FROM orders o
      JOIN unnest(${numberArray(since.map((s) => s.optionId))}::bigint[], ${numberArray(since.map((s) => s.version))}::bigint[])
        AS v(option_id, version) ON o.option_id = v.option_id AND o.book_version > v.version
      ORDER BY id`.execute(db);
    return rows;
  }

  findOrder(db: Queryable, id: number): Promise<OrderRow | undefined> {
    return db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** These orders of one user (others' and unknown ids are left out). */
  ordersOfUser(db: Queryable, userId: number, ids: number[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('orders')
      .select(['id', 'option_id', 'status'])
      .where('user_id', '=', userId)
      .where('id', '=', sql<number>`ANY(${ids}::bigint[])`)
      .execute();
  }

  /** A user's resting orders, oldest first, narrowed by any of the filters given. */
  restingOrdersOfUser(db: Queryable, userId: number, filter: RestingOrderFilter) {
    let query = db
      .selectFrom('orders as o')
      .select(['o.id', 'o.option_id'])
      .where('o.user_id', '=', userId)
      .where('o.status', 'in', OPEN_STATUSES)
      .orderBy('o.id');
    if (filter.optionId !== undefined) query = query.where('o.option_id', '=', filter.optionId);
    if (filter.eventSlug !== undefined)
      query = query.where('o.option_id', 'in', (eb) =>
        eb
          .selectFrom('options as op')
          .innerJoin('events as e', 'e.id', 'op.event_id')
          .select('op.id')
          .where('e.slug', '=', filter.eventSlug as string),
      );
    if (filter.side !== undefined) query = query.where('o.side', '=', filter.side);
    if (filter.action !== undefined) query = query.where('o.action', '=', filter.action);
    if (filter.placedBy !== undefined) query = query.where('o.placed_by', '=', filter.placedBy);
    if (filter.placedBefore !== undefined) query = query.where('o.created_at', '<', filter.placedBefore);
    return query.execute();
  }

  /**
   * Locks the positions (both sides) of these holders in these options, each pair its own (creating none): not every
   * holder's in every option named, which would lock the positions of makers in markets they did not trade here.
   */
  lockPositions(db: Queryable, holdings: { userId: number; optionId: number }[]): Promise<PositionRow[]> {
    if (holdings.length === 0) return Promise.resolve([]);
    const pairs = new Map(holdings.map((h) => [`${h.userId}:${h.optionId}`, h]));
    const optionIds = [...pairs.values()].map((h) => h.optionId);
    const userIds = [...pairs.values()].map((h) => h.userId);
    return (
      db
        .selectFrom('positions')
        .selectAll()
        // Two array parameters: the same text for every batch, so it is prepared once.
        .where(
          sql<boolean>`(option_id, user_id) IN (SELECT * FROM unnest(${optionIds}::bigint[], ${userIds}::bigint[]))`,
        )
        .orderBy('id')
        .forUpdate()
        .execute()
    );
  }

  /** Open orders past their expiry, oldest first (not locked: the option lock is taken per order). */
  dueExpiries(db: Queryable, limit: number) {
    return db
      .selectFrom('orders')
      .select(['id', 'option_id', 'expires_at'])
      .where('status', 'in', OPEN_STATUSES)
      .where('expires_at', '<=', new Date())
      .orderBy('expires_at')
      .limit(limit)
      .execute();
  }
}

/** A row of the markets' lock statement. */
interface LockedRow extends Omit<LockedOption, 'book_version'> {
  book_version: number | string;
  event_status: string;
  closes_at: Date;
  slug: string;
  title: string;
  exclusive: boolean;
  event_liquidity_b: number;
  db_now: Date;
}

/** A market under its lock, from its options' rows (in id order). */
function lockedMarketOf(ref: MarketRef, rows: LockedRow[]): LockedMarket {
  const first = rows[0] as LockedRow;
  return {
    ref,
    eventId: Number(first.event_id),
    slug: first.slug,
    title: first.title,
    eventStatus: first.event_status,
    closesAt: first.closes_at,
    exclusive: first.exclusive,
    eventLiquidityCents: Number(first.event_liquidity_b),
    dbNow: first.db_now,
    options: rows.map((row) => ({
      id: Number(row.id),
      event_id: Number(row.event_id),
      label: row.label,
      liquidity_b: Number(row.liquidity_b),
      amm_offset: Number(row.amm_offset),
      amm_yes_shares: Number(row.amm_yes_shares),
      amm_no_shares: Number(row.amm_no_shares),
      pool_yes_shares: Number(row.pool_yes_shares),
      pool_no_shares: Number(row.pool_no_shares),
      last_yes_price: row.last_yes_price === null ? null : Number(row.last_yes_price),
      book_version: Number(row.book_version),
      has_protections: row.has_protections,
    })),
  };
}

import { type Selectable, sql } from 'kysely';
import type { DecidedFill, OptionTotals } from '../../exchange/decision.js';
import type { TradeRecord } from '../../exchange/execution.js';
import type { BookSide } from '../../exchange/order-book.js';
import type { OrderState } from '../../exchange/orders.js';
import type { PositionState } from '../../exchange/positions.js';
import { booleanArray, numberArray, textArray, timestampArray } from '../../platform/db/arrays.js';
import type {
  EventStatus,
  OrderStatus,
  OrdersTable,
  PositionsTable,
  SideText,
  TradesTable,
} from '../../platform/db/schema.js';
import { takenIds } from '../../platform/db/sequences.js';
import type { Queryable } from '../../platform/db/types.js';

export type OrderRow = Selectable<OrdersTable>;
export type PositionRow = Selectable<PositionsTable>;
export type TradeRow = Selectable<TradesTable>;

/** Which of a user's orders to list: open or finished limit orders, optionally of one event. */
export interface OrderFilter {
  open: boolean;
  eventSlug?: string;
}

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

/** Which of a user's trades to list: in settled events, in the others, or all (`null`); optionally of one event. */
export interface TradeFilter {
  settled: boolean | null;
  eventSlug?: string;
}

const OPEN_STATUSES: OrderStatus[] = ['open', 'partially_filled'];

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

/** What a decision did to one option: the house's inventory now, and what to add to the option's totals. */
export interface OptionChange extends OptionTotals {
  optionId: number;
  ammYesShares: number;
  ammNoShares: number;
  poolYesShares: number;
  poolNoShares: number;
  /** Whether the option's book changed: its book version then rises by one. */
  bookChanged: boolean;
  /** Its book version as read under the lock: the orders written now are stamped one above it. */
  bookVersion: number;
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

  /**
   * Takes a market's lock: the row locks of its options, in id order (so that no two writers ever wait on each
   * other in a circle). Every change to a book (orders, cancels, expiry, close, conversions, settlement) runs under
   * it, so each market's decisions are serialised across all instances. Undefined when no such option or event.
   */
  async lockMarket(db: Queryable, ref: MarketRef): Promise<LockedMarket | undefined> {
    const rows = await db
      .selectFrom('options as o')
      .innerJoin('events as e', 'e.id', 'o.event_id')
      .select([
        'o.id',
        'o.event_id',
        'o.label',
        'o.liquidity_b',
        'o.amm_offset',
        'o.amm_yes_shares',
        'o.amm_no_shares',
        'o.pool_yes_shares',
        'o.pool_no_shares',
        'o.last_yes_price',
        'o.book_version',
        'e.status as event_status',
        'e.closes_at',
        'e.slug',
        'e.title',
        'e.exclusive',
        'e.liquidity_b as event_liquidity_b',
        sql<Date>`now()`.as('db_now'),
        sql<boolean>`EXISTS (
          SELECT FROM positions p
          WHERE p.option_id = o.id AND (p.stop_loss_bps IS NOT NULL OR p.take_profit_bps IS NOT NULL))`.as(
          'has_protections',
        ),
      ])
      .where(
        ref.kind === 'option' ? 'o.id' : 'o.event_id',
        '=',
        ref.kind === 'option' ? ref.optionId : ref.eventId,
      )
      .orderBy('o.id')
      .forUpdate('o')
      .execute();
    const first = rows[0];
    if (!first) return undefined;
    return {
      ref,
      eventId: first.event_id,
      slug: first.slug,
      title: first.title,
      eventStatus: first.event_status,
      closesAt: first.closes_at,
      exclusive: first.exclusive,
      eventLiquidityCents: first.event_liquidity_b,
      dbNow: first.db_now,
      options: rows.map((row) => ({
        id: row.id,
        event_id: row.event_id,
        label: row.label,
        liquidity_b: row.liquidity_b,
        amm_offset: row.amm_offset,
        amm_yes_shares: row.amm_yes_shares,
        amm_no_shares: row.amm_no_shares,
        pool_yes_shares: row.pool_yes_shares,
        pool_no_shares: row.pool_no_shares,
        last_yes_price: row.last_yes_price,
        book_version: Number(row.book_version),
        has_protections: row.has_protections,
      })),
    };
  }

  /**
   * In one round trip: locks the cash balances of these users (in account order, so that concurrent writers never
   * deadlock on them) and takes `count` order ids from the orders' identity sequence, in order.
   */
  async lockCashAndTakeOrderIds(
    db: Queryable,
    userIds: number[],
    count: number,
  ): Promise<{ cash: Map<number, number>; ids: number[] }> {
    const { rows } = await sql<{ cash: [number, number][] | null; ids: (number | string)[] | null }>`
      WITH cash AS (
        SELECT user_id, balance FROM ledger_accounts
        WHERE kind = 'cash' AND user_id = ANY(${userIds}::bigint[]) ORDER BY id FOR UPDATE
      )
      SELECT (SELECT json_agg(json_build_array(user_id, balance)) FROM cash) AS cash,
        ${takenIds('orders', count)} AS ids`.execute(db);
    const row = rows[0];
    return {
      cash: new Map((row?.cash ?? []).map(([userId, balance]) => [Number(userId), Number(balance)])),
      ids: (row?.ids ?? []).map(Number),
    };
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
   * Writes what a decision decided, in one statement: its new orders (in their final state), its fills and its
   * trades (with the ids taken for them, in the order given), the resting orders it changed, the positions it
   * changed and the state of each option it changed. Returns each changed option's book version as written.
   */
  async writeBatch(
    db: Queryable,
    batch: {
      eventId: number;
      orders: OrderState[];
      newOrderIds: Set<number>;
      fills: DecidedFill[];
      fillIds: number[];
      trades: TradeRecord[];
      tradeIds: number[];
      positions: { userId: number; optionId: number; side: SideText; state: PositionState }[];
      options: OptionChange[];
    },
  ): Promise<Map<number, number>> {
    const { eventId, fills, trades, positions, options } = batch;
    const orders = batch.orders.filter((o) => batch.newOrderIds.has(o.id));
    const changedOrders = batch.orders.filter((o) => !batch.newOrderIds.has(o.id));
    // Stamped here rather than by the orders' trigger, which then has nothing to do (it is there for any other writer).
    const next = new Map(options.map((o) => [o.optionId, o.bookVersion + 1]));
    const versionOf = (rows: OrderState[]) => numberArray(rows.map((o) => next.get(o.optionId) ?? null));
    const order = <K extends keyof OrderState>(key: K) => orders.map((row) => row[key]);
    const trade = <K extends keyof TradeRecord>(key: K) => trades.map((row) => row[key]);
    const option = <K extends keyof OptionChange>(key: K) => options.map((row) => row[key]);
    const { rows } = await sql<{ versions: [number | string, number | string][] | null }>`
      WITH new_orders AS (
        INSERT INTO orders (id, user_id, option_id, kind, side, action, price_cents, book_side, book_price, quantity,
          filled_quantity, reserved_cents, status, cancel_reason, client_order_id, expires_at, time_in_force,
          post_only, placed_by, replaces_order_id, created_at, updated_at, book_version)
        OVERRIDING SYSTEM VALUE
        SELECT v.id, v.user_id, v.option_id, v.kind, v.side, v.action, v.price_cents, v.book_side, v.book_price,
          v.quantity, v.filled_quantity, v.reserved_cents, v.status, v.cancel_reason, v.client_order_id, v.expires_at,
          v.time_in_force, v.post_only, v.placed_by, v.replaces_order_id, v.created_at, v.created_at, v.book_version
        FROM unnest(${numberArray(order('id'))}::bigint[], ${numberArray(order('userId'))}::bigint[], ${numberArray(order('optionId'))}::bigint[],
          ${textArray(order('kind'))}::text[], ${textArray(order('side'))}::text[], ${textArray(order('action'))}::text[], ${numberArray(order('priceCents'))}::int[],
          ${textArray(order('bookSide'))}::text[], ${numberArray(order('bookPrice'))}::int[], ${numberArray(order('quantity'))}::bigint[],
          ${numberArray(order('filledQuantity'))}::bigint[], ${numberArray(order('reservedCents'))}::bigint[], ${textArray(order('status'))}::text[],
          ${textArray(order('cancelReason'))}::text[], ${textArray(order('clientOrderId'))}::text[], ${timestampArray(order('expiresAt'))}::timestamptz[],
          ${textArray(order('timeInForce'))}::text[], ${booleanArray(order('postOnly'))}::boolean[], ${textArray(order('placedBy'))}::text[],
          ${numberArray(order('replacesOrderId'))}::bigint[], ${timestampArray(order('createdAt'))}::timestamptz[],
          ${versionOf(orders)}::bigint[])
          AS v(id, user_id, option_id, kind, side, action, price_cents, book_side, book_price, quantity,
            filled_quantity, reserved_cents, status, cancel_reason, client_order_id, expires_at, time_in_force,
            post_only, placed_by, replaces_order_id, created_at, book_version)
      ),
      new_fills AS (
        INSERT INTO fills (id, option_id, yes_price, quantity, kind, taker_order_id, maker_order_id)
        OVERRIDING SYSTEM VALUE
        SELECT * FROM unnest(${numberArray(batch.fillIds)}::bigint[], ${numberArray(fills.map((f) => f.optionId))}::bigint[],
          ${numberArray(fills.map((f) => f.yesPrice))}::int[], ${numberArray(fills.map((f) => f.quantity))}::bigint[],
          ${textArray(fills.map((f) => f.kind))}::text[], ${numberArray(fills.map((f) => f.takerOrderId))}::bigint[],
          ${numberArray(fills.map((f) => f.makerOrderId))}::bigint[])
      ),
      new_trades AS (
        INSERT INTO trades (id, option_id, event_id, fill_id, order_id, user_id, side, action, quantity, price_cents,
          fee_cents, liquidity)
        OVERRIDING SYSTEM VALUE
        SELECT v.id, v.option_id, ${eventId}::bigint, v.fill_id, v.order_id, v.user_id, v.side, v.action,
          v.quantity, v.price_cents, v.fee_cents, v.liquidity
        FROM unnest(${numberArray(batch.tradeIds)}::bigint[],
          ${numberArray(trades.map((t) => (fills[t.fillIndex] as DecidedFill).optionId))}::bigint[],
          ${numberArray(trades.map((t) => batch.fillIds[t.fillIndex] as number))}::bigint[], ${numberArray(trade('orderId'))}::bigint[],
          ${numberArray(trade('userId'))}::bigint[], ${textArray(trade('side'))}::text[], ${textArray(trade('action'))}::text[],
          ${numberArray(trade('quantity'))}::bigint[], ${numberArray(trade('priceCents'))}::int[], ${numberArray(trade('feeCents'))}::bigint[],
          ${textArray(trade('liquidity'))}::text[])
          AS v(id, option_id, fill_id, order_id, user_id, side, action, quantity, price_cents, fee_cents, liquidity)
      ),
      changed_orders AS (
        UPDATE orders SET quantity = v.quantity, filled_quantity = v.filled, reserved_cents = v.reserved,
          status = v.status, cancel_reason = coalesce(v.reason, orders.cancel_reason), updated_at = now(),
          book_version = v.book_version
        FROM unnest(${numberArray(changedOrders.map((o) => o.id))}::bigint[], ${numberArray(changedOrders.map((o) => o.quantity))}::bigint[],
          ${numberArray(changedOrders.map((o) => o.filledQuantity))}::bigint[], ${numberArray(changedOrders.map((o) => o.reservedCents))}::bigint[],
          ${textArray(changedOrders.map((o) => o.status))}::text[], ${textArray(changedOrders.map((o) => o.cancelReason))}::text[],
          ${versionOf(changedOrders)}::bigint[])
          AS v(id, quantity, filled, reserved, status, reason, book_version)
        WHERE orders.id = v.id
      ),
      changed_positions AS (
        INSERT INTO positions (option_id, user_id, side, quantity, reserved_quantity, cost_cents, realized_pnl_cents)
        SELECT * FROM unnest(${numberArray(positions.map((p) => p.optionId))}::bigint[], ${numberArray(positions.map((p) => p.userId))}::bigint[],
          ${textArray(positions.map((p) => p.side))}::text[], ${numberArray(positions.map((p) => p.state.quantity))}::bigint[],
          ${numberArray(positions.map((p) => p.state.reservedQuantity))}::bigint[],
          ${numberArray(positions.map((p) => p.state.costCents))}::bigint[],
          ${numberArray(positions.map((p) => p.state.realizedPnlCents))}::bigint[])
        ON CONFLICT (user_id, option_id, side) DO UPDATE SET quantity = excluded.quantity,
          reserved_quantity = excluded.reserved_quantity, cost_cents = excluded.cost_cents,
          realized_pnl_cents = excluded.realized_pnl_cents, updated_at = now()
      ),
      changed_options AS (
        UPDATE options SET amm_yes_shares = v.amm_yes, amm_no_shares = v.amm_no, pool_yes_shares = v.pool_yes,
          pool_no_shares = v.pool_no, pairs_minted = options.pairs_minted + v.minted,
          pairs_merged = options.pairs_merged + v.merged, volume_shares = options.volume_shares + v.traded_shares,
          volume_cents = options.volume_cents + v.traded_cents, amm_cash_cents = options.amm_cash_cents + v.house_cash,
          last_yes_price = coalesce(v.last_price, options.last_yes_price),
          book_version = options.book_version + CASE WHEN v.bump THEN 1 ELSE 0 END
        FROM unnest(${numberArray(option('optionId'))}::bigint[], ${numberArray(option('ammYesShares'))}::bigint[],
          ${numberArray(option('ammNoShares'))}::bigint[], ${numberArray(option('poolYesShares'))}::bigint[], ${numberArray(option('poolNoShares'))}::bigint[],
          ${numberArray(option('pairsMinted'))}::bigint[], ${numberArray(option('pairsMerged'))}::bigint[], ${numberArray(option('volumeShares'))}::bigint[],
          ${numberArray(option('volumeCents'))}::bigint[], ${numberArray(option('houseCashCents'))}::bigint[], ${numberArray(option('lastYesPrice'))}::int[],
          ${booleanArray(option('bookChanged'))}::boolean[])
          AS v(id, amm_yes, amm_no, pool_yes, pool_no, minted, merged, traded_shares, traded_cents, house_cash,
            last_price, bump)
        WHERE options.id = v.id
        RETURNING options.id, options.book_version
      )
      SELECT (SELECT json_agg(json_build_array(id, book_version)) FROM changed_options) AS versions`.execute(
      db,
    );
    return new Map((rows[0]?.versions ?? []).map(([id, version]) => [Number(id), Number(version)]));
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

  /** A user's conversions, newest first, with their event's slug and option labels. */
  listConversions(
    db: Queryable,
    userId: number,
    eventSlug: string | undefined,
    beforeId: number | null,
    limit: number,
  ) {
    let query = db
      .selectFrom('conversions as c')
      .innerJoin('events as e', 'e.id', 'c.event_id')
      .selectAll('c')
      .select([
        'e.slug as event_slug',
        sql<
          Record<string, string>
        >`(SELECT json_object_agg(o.id, o.label) FROM options o WHERE o.event_id = c.event_id)`.as('labels'),
      ])
      .where('c.user_id', '=', userId)
      .orderBy('c.id', 'desc')
      .limit(limit + 1);
    if (eventSlug !== undefined) query = query.where('e.slug', '=', eventSlug);
    if (beforeId !== null) query = query.where('c.id', '<', beforeId);
    return query.execute();
  }

  /** Takes `count` conversion ids from their sequence, in order. */
  async takeConversionIds(db: Queryable, count: number): Promise<number[]> {
    if (count === 0) return [];
    const { rows } = await sql<{ ids: (number | string)[] | null }>`
      SELECT ${takenIds('conversions', count)} AS ids`.execute(db);
    return (rows[0]?.ids ?? []).map(Number);
  }

  /** The stored results of idempotency keys already used by these users. */
  async findIdempotencyKeys(db: Queryable, keys: { userId: number; key: string }[]) {
    if (keys.length === 0) return [];
    return db
      .selectFrom('idempotency_keys')
      .select(['user_id', 'key', 'request_hash', 'status_code', 'response'])
      .where((eb) => eb.or(keys.map((k) => eb.and([eb('user_id', '=', k.userId), eb('key', '=', k.key)]))))
      .execute();
  }

  /** Which of these clientOrderIds their users have already given to an order. */
  usedClientOrderIds(db: Queryable, names: { userId: number; clientOrderId: string }[]) {
    return db
      .selectFrom('orders')
      .select(['user_id', 'client_order_id'])
      .where((eb) =>
        eb.or(
          names.map((n) =>
            eb.and([eb('user_id', '=', n.userId), eb('client_order_id', '=', n.clientOrderId)]),
          ),
        ),
      )
      .execute();
  }

  /** Stores idempotency keys with their results; returns how many were new (a race makes it fewer). */
  async insertIdempotencyResults(
    db: Queryable,
    rows: { userId: number; key: string; requestHash: string; statusCode: number; response: unknown }[],
  ): Promise<number> {
    if (rows.length === 0) return 0;
    const { rows: inserted } = await sql<{ key: string }>`
      INSERT INTO idempotency_keys (user_id, key, request_hash, status_code, response)
      SELECT u, k, h, s, r::jsonb FROM unnest(${rows.map((row) => row.userId)}::bigint[],
        ${rows.map((row) => row.key)}::text[], ${rows.map((row) => row.requestHash)}::text[],
        ${rows.map((row) => row.statusCode)}::int[], ${rows.map((row) => JSON.stringify(row.response))}::text[])
        AS v(u, k, h, s, r)
      ON CONFLICT (user_id, key) DO NOTHING
      RETURNING key`.execute(db);
    return inserted.length;
  }

  /** The orders of an option written after its book was at `version` (their book_version is above it). */
  ordersChangedSince(db: Queryable, optionId: number, version: number): Promise<OrderRow[]> {
    return db
      .selectFrom('orders')
      .selectAll()
      .where('option_id', '=', optionId)
      .where('book_version', '>', version)
      .orderBy('id')
      .execute();
  }

  /** Every resting order of an option, for a whole-book view. */
  async openOrdersOf(db: Queryable, optionId: number): Promise<OrderRow[]> {
    return db
      .selectFrom('orders')
      .selectAll()
      .where('option_id', '=', optionId)
      .where('status', 'in', OPEN_STATUSES)
      .orderBy('id')
      .execute();
  }

  /**
   * An option's book as it stands, in one statement (so one consistent snapshot): the option, its event's state,
   * its resting orders aggregated per level, and for an exclusive event the inventory of the event's house maker in
   * every option (its quotes in this option depend on all of them).
   */
  async bookAt(db: Queryable, optionId: number) {
    const { rows } = await sql<
      HouseMakerColumns & {
        id: number;
        event_id: number;
        label: string;
        book_version: number;
        last_yes_price: number | null;
        event_slug: string;
        event_status: EventStatus;
        exclusive: boolean;
        event_liquidity_b: number;
        levels: [BookSide, number, number, number][] | null;
        makers: [number, number, number, number][] | null;
      }
    >`
      SELECT o.id, o.event_id, o.label, o.book_version, o.last_yes_price, o.liquidity_b, o.amm_offset,
        o.amm_yes_shares, o.amm_no_shares, e.slug AS event_slug, e.status AS event_status, e.exclusive,
        e.liquidity_b AS event_liquidity_b,
        (SELECT json_agg(json_build_array(l.book_side, l.book_price, l.quantity, l.orders)) FROM (
          SELECT book_side, book_price, sum(quantity - filled_quantity) AS quantity, count(*) AS orders
          FROM orders WHERE option_id = o.id AND status IN ('open', 'partially_filled')
          GROUP BY book_side, book_price) l) AS levels,
        CASE WHEN e.exclusive THEN (
          SELECT json_agg(json_build_array(s.id, s.amm_offset, s.amm_yes_shares, s.amm_no_shares) ORDER BY s.id)
          FROM options s WHERE s.event_id = e.id) END AS makers
      FROM options o JOIN events e ON e.id = o.event_id
      WHERE o.id = ${optionId}`.execute(db);
    const row = rows[0];
    if (!row) return undefined;
    const { levels, makers, ...option } = row;
    return {
      option: { ...option, book_version: Number(option.book_version) },
      levels: (levels ?? []).map(([side, priceCents, quantity, orders]) => ({
        side,
        priceCents,
        quantity: Number(quantity),
        orders: Number(orders),
      })),
      makers: (makers ?? []).map(([id, offset, yesShares, noShares]) => ({
        optionId: Number(id),
        offset: Number(offset),
        yesShares: Number(yesShares),
        noShares: Number(noShares),
      })),
    };
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
   * Claims an idempotency key for a request answered in several parts (a batch): stored with the request's
   * fingerprint and no answer of its own. 'new' the first time; after that 'same' for the same request, or 'mismatch'.
   */
  async claimIdempotencyKey(
    db: Queryable,
    userId: number,
    key: string,
    requestHash: string,
  ): Promise<'new' | 'same' | 'mismatch'> {
    const claimed = await db
      .insertInto('idempotency_keys')
      .values({ user_id: userId, key, request_hash: requestHash })
      .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    if (claimed) return 'new';
    // A statement of its own, so that it sees the row a concurrent claim committed.
    const row = await db
      .selectFrom('idempotency_keys')
      .select('request_hash')
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row) return 'mismatch';
    return row.request_hash === requestHash ? 'same' : 'mismatch';
  }

  /** Locks the positions of these holders in these options (creating none). */
  lockPositions(db: Queryable, optionIds: number[], userIds: number[]): Promise<PositionRow[]> {
    if (userIds.length === 0 || optionIds.length === 0) return Promise.resolve([]);
    return (
      db
        .selectFrom('positions')
        .selectAll()
        // One array parameter each, not a list: the same text for every batch, so it is prepared once.
        .where('option_id', '=', sql<number>`ANY(${optionIds}::bigint[])`)
        .where('user_id', '=', sql<number>`ANY(${userIds}::bigint[])`)
        .orderBy('id')
        .forUpdate()
        .execute()
    );
  }

  async savePositions(
    db: Queryable,
    positions: { userId: number; optionId: number; side: SideText; state: PositionState }[],
  ): Promise<void> {
    if (positions.length === 0) return;
    await sql`
      INSERT INTO positions (option_id, user_id, side, quantity, reserved_quantity, cost_cents, realized_pnl_cents)
      SELECT * FROM unnest(${positions.map((p) => p.optionId)}::bigint[], ${positions.map((p) => p.userId)}::bigint[],
        ${positions.map((p) => p.side)}::text[], ${positions.map((p) => p.state.quantity)}::bigint[],
        ${positions.map((p) => p.state.reservedQuantity)}::bigint[], ${positions.map((p) => p.state.costCents)}::bigint[],
        ${positions.map((p) => p.state.realizedPnlCents)}::bigint[])
      ON CONFLICT (user_id, option_id, side) DO UPDATE SET quantity = excluded.quantity,
        reserved_quantity = excluded.reserved_quantity, cost_cents = excluded.cost_cents,
        realized_pnl_cents = excluded.realized_pnl_cents, updated_at = now()`.execute(db);
  }

  listOrders(db: Queryable, userId: number, filter: OrderFilter, beforeId: number | null, limit: number) {
    const { open, eventSlug } = filter;
    let query = db
      .selectFrom('orders as o')
      .innerJoin('options as op', 'op.id', 'o.option_id')
      .innerJoin('events as e', 'e.id', 'op.event_id')
      .selectAll('o')
      .select(['e.slug as event_slug', 'e.title as event_title', 'op.label as option_label'])
      .where('o.user_id', '=', userId)
      .where('o.status', open ? 'in' : 'not in', OPEN_STATUSES)
      .orderBy('o.id', 'desc')
      .limit(limit + 1);
    if (!open) query = query.where('o.kind', '=', 'limit');
    if (eventSlug !== undefined) query = query.where('e.slug', '=', eventSlug);
    if (beforeId !== null) query = query.where('o.id', '<', beforeId);
    return query.execute();
  }

  listTrades(db: Queryable, userId: number, filter: TradeFilter, beforeId: number | null, limit: number) {
    const { settled, eventSlug } = filter;
    let query = db
      .selectFrom('trades as t')
      .innerJoin('options as op', 'op.id', 't.option_id')
      .innerJoin('events as e', 'e.id', 't.event_id')
      .innerJoin('orders as o', 'o.id', 't.order_id')
      .selectAll('t')
      .select([
        'e.slug as event_slug',
        'e.title as event_title',
        'op.label as option_label',
        'o.kind as order_kind',
      ])
      .where('t.user_id', '=', userId)
      .orderBy('t.id', 'desc')
      .limit(limit + 1);
    if (settled !== null) query = query.where('e.status', settled ? '=' : '<>', 'settled');
    if (eventSlug !== undefined) query = query.where('e.slug', '=', eventSlug);
    if (beforeId !== null) query = query.where('t.id', '<', beforeId);
    return query.execute();
  }

  /** Open positions (shares held) of a user, with what is needed to value them. */
  positionsOf(db: Queryable, userId: number) {
    return db
      .selectFrom('positions as p')
      .innerJoin('options as op', 'op.id', 'p.option_id')
      .innerJoin('events as e', 'e.id', 'op.event_id')
      .selectAll('p')
      .select([
        'e.slug as event_slug',
        'e.title as event_title',
        'e.status as event_status',
        'op.label as option_label',
        'op.last_yes_price',
        'op.resolution',
      ])
      .where('p.user_id', '=', userId)
      .where('p.quantity', '>', 0)
      .orderBy('p.id')
      .execute();
  }

  async realizedPnl(db: Queryable, userId: number): Promise<number> {
    const row = await db
      .selectFrom('positions')
      .select(sql<number>`coalesce(sum(realized_pnl_cents), 0)::bigint`.as('total'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  async openOrderCount(db: Queryable, userId: number): Promise<number> {
    const row = await db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('status', 'in', OPEN_STATUSES)
      .executeTakeFirstOrThrow();
    return Number(row.n);
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

  /** Who holds shares of an option; locked for a settlement, unlocked for a preview of one. */
  holdersOf(db: Queryable, optionId: number, lock = true): Promise<PositionRow[]> {
    const query = db
      .selectFrom('positions')
      .selectAll()
      .where('option_id', '=', optionId)
      .where('quantity', '>', 0)
      .orderBy('id');
    return (lock ? query.forUpdate() : query).execute();
  }

  async insertSettlements(
    db: Queryable,
    rows: {
      userId: number;
      optionId: number;
      eventId: number;
      side: SideText;
      outcome: 'YES' | 'NO' | 'VOID';
      quantity: number;
      payoutCents: number;
      pnlCents: number;
    }[],
  ): Promise<void> {
    if (rows.length === 0) return;
    await db
      .insertInto('position_settlements')
      .values(
        rows.map((r) => ({
          user_id: r.userId,
          option_id: r.optionId,
          event_id: r.eventId,
          side: r.side,
          outcome: r.outcome,
          quantity: r.quantity,
          payout_cents: r.payoutCents,
          pnl_cents: r.pnlCents,
        })),
      )
      .execute();
  }

  /** The house maker's inventory in a settled option is paid out: its result there is final. */
  async settleHouse(db: Queryable, optionId: number, payoutCents: number): Promise<void> {
    await db
      .updateTable('options')
      .set((eb) => ({
        amm_yes_shares: 0,
        amm_no_shares: 0,
        amm_cash_cents: eb('amm_cash_cents', '+', payoutCents),
      }))
      .where('id', '=', optionId)
      .execute();
  }

  async hasHeldPosition(db: Queryable, userId: number, eventId: number): Promise<boolean> {
    const row = await db
      .selectFrom('positions as p')
      .innerJoin('options as o', 'o.id', 'p.option_id')
      .select('p.id')
      .where('p.user_id', '=', userId)
      .where('o.event_id', '=', eventId)
      .executeTakeFirst();
    return row !== undefined;
  }
}

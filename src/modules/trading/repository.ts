import { type Selectable, sql } from 'kysely';
import type { DecidedFill, OptionTotals } from '../../exchange/decision.js';
import type { TradeRecord } from '../../exchange/execution.js';
import type { BookSide } from '../../exchange/order-book.js';
import type { OrderState } from '../../exchange/orders.js';
import type { PositionState } from '../../exchange/positions.js';
import type {
  EventStatus,
  OrderStatus,
  OrdersTable,
  PositionsTable,
  SideText,
  TradesTable,
} from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';

export type OrderRow = Selectable<OrdersTable>;
export type PositionRow = Selectable<PositionsTable>;
export type TradeRow = Selectable<TradesTable>;

/** Which of a user's orders to list: open or finished limit orders, optionally of one event. */
export interface OrderFilter {
  open: boolean;
  eventSlug?: string;
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

/** The option with its event's state, as read under the option's lock. */
export interface LockedOption {
  id: number;
  event_id: number;
  label: string;
  liquidity_b: number;
  amm_offset: number;
  amm_yes_shares: number;
  amm_no_shares: number;
  last_yes_price: number | null;
  event_status: string;
  closes_at: Date;
  slug: string;
  book_version: number;
  /** The transaction's clock, for rows written in memory first (the batched path). */
  db_now: Date;
}

/** What a decision did to its option: the house's inventory now, and what to add to the option's totals. */
export interface OptionChange extends OptionTotals {
  ammYesShares: number;
  ammNoShares: number;
}

export class TradingRepository {
  /**
   * Takes the option's row lock: every change to an option's book (orders, cancels, expiry, close,
   * settlement) runs under it, so matching is serialised per option across all instances.
   */
  lockOption(db: Queryable, optionId: number, skipLocked = false): Promise<LockedOption | undefined> {
    let query = db
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
        'o.last_yes_price',
        'e.status as event_status',
        'e.closes_at',
        'e.slug',
        'o.book_version',
        sql<Date>`now()`.as('db_now'),
      ])
      .where('o.id', '=', optionId)
      .forUpdate('o');
    if (skipLocked) query = query.skipLocked();
    return query.executeTakeFirst();
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
        (SELECT array_agg(id ORDER BY id) FROM (
          SELECT nextval(pg_get_serial_sequence('orders', 'id')) AS id FROM generate_series(1, ${count}::int)
        ) taken) AS ids`.execute(db);
    const row = rows[0];
    return {
      cash: new Map((row?.cash ?? []).map(([userId, balance]) => [Number(userId), Number(balance)])),
      ids: (row?.ids ?? []).map(Number),
    };
  }

  /**
   * Writes what a decision decided, in one statement: its new orders (in their final state), its fills (ids taken
   * from the sequence in the statement), its trades, the resting orders it changed, the positions it changed and
   * the option's state. Returns the new book version and the fill and trade ids, in the order given.
   */
  async writeBatch(
    db: Queryable,
    batch: {
      optionId: number;
      eventId: number;
      orders: OrderState[];
      newOrderIds: Set<number>;
      fills: DecidedFill[];
      trades: TradeRecord[];
      positions: { userId: number; side: SideText; state: PositionState }[];
      option: OptionChange;
    },
  ): Promise<{ bookVersion: number; fillIds: number[]; tradeIds: number[] }> {
    const { optionId, eventId, fills, trades, positions, option } = batch;
    const orders = batch.orders.filter((o) => batch.newOrderIds.has(o.id));
    const changedOrders = batch.orders.filter((o) => !batch.newOrderIds.has(o.id));
    const order = <K extends keyof OrderState>(key: K) => orders.map((row) => row[key]);
    const trade = <K extends keyof TradeRecord>(key: K) => trades.map((row) => row[key]);
    const { rows } = await sql<{
      book_version: number;
      fill_ids: (number | string)[] | null;
      trade_ids: (number | string)[] | null;
    }>`
      WITH fill_ids AS MATERIALIZED (
        SELECT ord, nextval(pg_get_serial_sequence('fills', 'id')) AS id
        FROM generate_series(1, ${fills.length}::int) AS ord
      ),
      new_orders AS (
        INSERT INTO orders (id, user_id, option_id, kind, side, action, price_cents, book_side, book_price, quantity,
          filled_quantity, reserved_cents, status, cancel_reason, client_order_id, expires_at, created_at, updated_at)
        OVERRIDING SYSTEM VALUE
        SELECT v.id, v.user_id, ${optionId}::bigint, v.kind, v.side, v.action, v.price_cents, v.book_side, v.book_price,
          v.quantity, v.filled_quantity, v.reserved_cents, v.status, v.cancel_reason, v.client_order_id, v.expires_at,
          v.created_at, v.created_at
        FROM unnest(${order('id')}::bigint[], ${order('userId')}::bigint[], ${order('kind')}::text[],
          ${order('side')}::text[], ${order('action')}::text[], ${order('priceCents')}::int[],
          ${order('bookSide')}::text[], ${order('bookPrice')}::int[], ${order('quantity')}::bigint[],
          ${order('filledQuantity')}::bigint[], ${order('reservedCents')}::bigint[], ${order('status')}::text[],
          ${order('cancelReason')}::text[], ${order('clientOrderId')}::text[], ${order('expiresAt')}::timestamptz[],
          ${order('createdAt')}::timestamptz[])
          AS v(id, user_id, kind, side, action, price_cents, book_side, book_price, quantity, filled_quantity,
            reserved_cents, status, cancel_reason, client_order_id, expires_at, created_at)
      ),
      new_fills AS (
        INSERT INTO fills (id, option_id, yes_price, quantity, kind, taker_order_id, maker_order_id)
        OVERRIDING SYSTEM VALUE
        SELECT fill_ids.id, ${optionId}::bigint, v.yes_price, v.quantity, v.kind, v.taker, v.maker
        FROM unnest(${fills.map((f) => f.yesPrice)}::int[], ${fills.map((f) => f.quantity)}::bigint[],
          ${fills.map((f) => f.kind)}::text[], ${fills.map((f) => f.takerOrderId)}::bigint[],
          ${fills.map((f) => f.makerOrderId)}::bigint[]) WITH ORDINALITY AS v(yes_price, quantity, kind, taker, maker, ord)
        JOIN fill_ids USING (ord)
      ),
      new_trades AS (
        INSERT INTO trades (option_id, event_id, fill_id, order_id, user_id, side, action, quantity, price_cents,
          fee_cents, liquidity)
        SELECT ${optionId}::bigint, ${eventId}::bigint, fill_ids.id, v.order_id, v.user_id, v.side, v.action,
          v.quantity, v.price_cents, v.fee_cents, v.liquidity
        FROM unnest(${trades.map((t) => t.fillIndex + 1)}::int[], ${trade('orderId')}::bigint[],
          ${trade('userId')}::bigint[], ${trade('side')}::text[], ${trade('action')}::text[],
          ${trade('quantity')}::bigint[], ${trade('priceCents')}::int[], ${trade('feeCents')}::bigint[],
          ${trade('liquidity')}::text[])
          WITH ORDINALITY AS v(fill_ord, order_id, user_id, side, action, quantity, price_cents, fee_cents, liquidity, ord)
        JOIN fill_ids ON fill_ids.ord = v.fill_ord
        ORDER BY v.ord
        RETURNING id
      ),
      changed_orders AS (
        UPDATE orders SET filled_quantity = v.filled, reserved_cents = v.reserved, status = v.status,
          cancel_reason = coalesce(v.reason, orders.cancel_reason), updated_at = now()
        FROM unnest(${changedOrders.map((o) => o.id)}::bigint[], ${changedOrders.map((o) => o.filledQuantity)}::bigint[],
          ${changedOrders.map((o) => o.reservedCents)}::bigint[], ${changedOrders.map((o) => o.status)}::text[],
          ${changedOrders.map((o) => o.cancelReason)}::text[]) AS v(id, filled, reserved, status, reason)
        WHERE orders.id = v.id
      ),
      changed_positions AS (
        INSERT INTO positions (option_id, user_id, side, quantity, reserved_quantity, cost_cents, realized_pnl_cents)
        SELECT ${optionId}::bigint, * FROM unnest(${positions.map((p) => p.userId)}::bigint[],
          ${positions.map((p) => p.side)}::text[], ${positions.map((p) => p.state.quantity)}::bigint[],
          ${positions.map((p) => p.state.reservedQuantity)}::bigint[],
          ${positions.map((p) => p.state.costCents)}::bigint[],
          ${positions.map((p) => p.state.realizedPnlCents)}::bigint[])
        ON CONFLICT (user_id, option_id, side) DO UPDATE SET quantity = excluded.quantity,
          reserved_quantity = excluded.reserved_quantity, cost_cents = excluded.cost_cents,
          realized_pnl_cents = excluded.realized_pnl_cents, updated_at = now()
      ),
      changed_option AS (
        UPDATE options SET amm_yes_shares = ${option.ammYesShares}, amm_no_shares = ${option.ammNoShares},
          pairs_minted = pairs_minted + ${option.pairsMinted}, pairs_merged = pairs_merged + ${option.pairsMerged},
          volume_shares = volume_shares + ${option.volumeShares}, volume_cents = volume_cents + ${option.volumeCents},
          last_yes_price = coalesce(${option.lastYesPrice}::int, last_yes_price), book_version = book_version + 1
        WHERE id = ${optionId}
        RETURNING book_version
      )
      SELECT (SELECT book_version FROM changed_option) AS book_version,
        (SELECT array_agg(id ORDER BY ord) FROM fill_ids) AS fill_ids,
        (SELECT array_agg(id ORDER BY id) FROM new_trades) AS trade_ids`.execute(db);
    const row = rows[0];
    return {
      bookVersion: Number(row?.book_version),
      fillIds: (row?.fill_ids ?? []).map(Number),
      tradeIds: (row?.trade_ids ?? []).map(Number),
    };
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
   * and its resting orders aggregated per level.
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
        levels: [BookSide, number, number, number][] | null;
      }
    >`
      SELECT o.id, o.event_id, o.label, o.book_version, o.last_yes_price, o.liquidity_b, o.amm_offset,
        o.amm_yes_shares, o.amm_no_shares, e.slug AS event_slug, e.status AS event_status,
        (SELECT json_agg(json_build_array(l.book_side, l.book_price, l.quantity, l.orders)) FROM (
          SELECT book_side, book_price, sum(quantity - filled_quantity) AS quantity, count(*) AS orders
          FROM orders WHERE option_id = o.id AND status IN ('open', 'partially_filled')
          GROUP BY book_side, book_price) l) AS levels
      FROM options o JOIN events e ON e.id = o.event_id
      WHERE o.id = ${optionId}`.execute(db);
    const row = rows[0];
    if (!row) return undefined;
    const { levels, ...option } = row;
    return {
      option: { ...option, book_version: Number(option.book_version) },
      levels: (levels ?? []).map(([side, priceCents, quantity, orders]) => ({
        side,
        priceCents,
        quantity: Number(quantity),
        orders: Number(orders),
      })),
    };
  }

  findOrder(db: Queryable, id: number): Promise<OrderRow | undefined> {
    return db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Locks the positions of these holders in an option (creating none). */
  lockPositions(db: Queryable, optionId: number, userIds: number[]): Promise<PositionRow[]> {
    if (userIds.length === 0) return Promise.resolve([]);
    return (
      db
        .selectFrom('positions')
        .selectAll()
        .where('option_id', '=', optionId)
        // One array parameter, not a list: the same text for every batch, so it is prepared once.
        .where('user_id', '=', sql<number>`ANY(${userIds}::bigint[])`)
        .orderBy('id')
        .forUpdate()
        .execute()
    );
  }

  async savePositions(
    db: Queryable,
    optionId: number,
    positions: { userId: number; side: SideText; state: PositionState }[],
  ): Promise<void> {
    if (positions.length === 0) return;
    await sql`
      INSERT INTO positions (option_id, user_id, side, quantity, reserved_quantity, cost_cents, realized_pnl_cents)
      SELECT ${optionId}::bigint, * FROM unnest(${positions.map((p) => p.userId)}::bigint[],
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

  async clearAmmInventory(db: Queryable, optionId: number): Promise<void> {
    await db
      .updateTable('options')
      .set({ amm_yes_shares: 0, amm_no_shares: 0 })
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

import { type RawBuilder, sql } from 'kysely';
import type { DecidedFill, OptionTotals } from '../../exchange/decision.js';
import type { TradeRecord } from '../../exchange/execution.js';
import type { OrderState } from '../../exchange/orders.js';
import type { PositionState } from '../../exchange/positions.js';
import { booleanArray, numberArray, textArray, timestampArray } from '../../platform/db/arrays.js';
import type { SideText } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';

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

/** What decisions write: their orders, fills, trades, positions and options, with the ids taken for them. */
export interface DecidedRows {
  /** Every order in its final state: the new ones (`newOrderIds`) and the resting ones changed. */
  orders: OrderState[];
  newOrderIds: Set<number>;
  fills: DecidedFill[];
  fillIds: number[];
  trades: TradeRecord[];
  /** Each trade's event. */
  tradeEventIds: number[];
  tradeIds: number[];
  positions: { userId: number; optionId: number; side: SideText; state: PositionState }[];
  options: OptionChange[];
}

/**
 * Writes what decisions decided, in one statement: its new orders (in their final state), its fills and its
 * trades (with the ids taken for them, in the order given), the resting orders it changed, the positions it
 * changed and the state of each option it changed. Returns each changed option's book version as written. The
 * orders are stamped with the book version they leave their option at here, rather than by the orders' trigger,
 * which then has nothing to do (it is there for any other writer).
 */
export async function writeDecidedRows(db: Queryable, batch: DecidedRows): Promise<Map<number, number>> {
  const next = new Map(batch.options.map((o) => [o.optionId, o.bookVersion + 1]));
  const versions = (rows: OrderState[]) => numberArray(rows.map((o) => next.get(o.optionId) ?? null));
  const fresh = batch.orders.filter((o) => batch.newOrderIds.has(o.id));
  const changed = batch.orders.filter((o) => !batch.newOrderIds.has(o.id));
  const { rows } = await sql<{ versions: [number | string, number | string][] | null }>`
    WITH new_orders AS (${insertOrders(fresh, versions(fresh))}),
    new_fills AS (${insertFills(batch)}),
    new_trades AS (${insertTrades(batch)}),
    changed_orders AS (${updateOrders(changed, versions(changed))}),
    changed_positions AS (${upsertPositions(batch.positions)}),
    changed_options AS (${updateOptions(batch.options)})
    SELECT (SELECT json_agg(json_build_array(id, book_version)) FROM changed_options) AS versions`.execute(
    db,
  );
  return new Map((rows[0]?.versions ?? []).map(([id, version]) => [Number(id), Number(version)]));
}

function insertOrders(orders: OrderState[], bookVersions: unknown): RawBuilder<unknown> {
  const column = <K extends keyof OrderState>(key: K) => orders.map((row) => row[key]);
  return sql`
    INSERT INTO orders (id, user_id, option_id, kind, side, action, price_cents, book_side, book_price, quantity,
      filled_quantity, reserved_cents, status, cancel_reason, client_order_id, expires_at, time_in_force,
      post_only, placed_by, replaces_order_id, created_at, updated_at, book_version)
    OVERRIDING SYSTEM VALUE
    SELECT v.id, v.user_id, v.option_id, v.kind, v.side, v.action, v.price_cents, v.book_side, v.book_price,
      v.quantity, v.filled_quantity, v.reserved_cents, v.status, v.cancel_reason, v.client_order_id, v.expires_at,
      v.time_in_force, v.post_only, v.placed_by, v.replaces_order_id, v.created_at, v.created_at, v.book_version
    FROM unnest(${numberArray(column('id'))}::bigint[], ${numberArray(column('userId'))}::bigint[], ${numberArray(column('optionId'))}::bigint[],
      ${textArray(column('kind'))}::text[], ${textArray(column('side'))}::text[], ${textArray(column('action'))}::text[], ${numberArray(column('priceCents'))}::int[],
      ${textArray(column('bookSide'))}::text[], ${numberArray(column('bookPrice'))}::int[], ${numberArray(column('quantity'))}::bigint[],
      ${numberArray(column('filledQuantity'))}::bigint[], ${numberArray(column('reservedCents'))}::bigint[], ${textArray(column('status'))}::text[],
      ${textArray(column('cancelReason'))}::text[], ${textArray(column('clientOrderId'))}::text[], ${timestampArray(column('expiresAt'))}::timestamptz[],
      ${textArray(column('timeInForce'))}::text[], ${booleanArray(column('postOnly'))}::boolean[], ${textArray(column('placedBy'))}::text[],
      ${numberArray(column('replacesOrderId'))}::bigint[], ${timestampArray(column('createdAt'))}::timestamptz[],
      ${bookVersions}::bigint[])
      AS v(id, user_id, option_id, kind, side, action, price_cents, book_side, book_price, quantity,
        filled_quantity, reserved_cents, status, cancel_reason, client_order_id, expires_at, time_in_force,
        post_only, placed_by, replaces_order_id, created_at, book_version)`;
}

function insertFills({ fills, fillIds }: DecidedRows): RawBuilder<unknown> {
  return sql`
    INSERT INTO fills (id, option_id, yes_price, quantity, kind, taker_order_id, maker_order_id)
    OVERRIDING SYSTEM VALUE
    SELECT * FROM unnest(${numberArray(fillIds)}::bigint[], ${numberArray(fills.map((f) => f.optionId))}::bigint[],
      ${numberArray(fills.map((f) => f.yesPrice))}::int[], ${numberArray(fills.map((f) => f.quantity))}::bigint[],
      ${textArray(fills.map((f) => f.kind))}::text[], ${numberArray(fills.map((f) => f.takerOrderId))}::bigint[],
      ${numberArray(fills.map((f) => f.makerOrderId))}::bigint[])`;
}

function insertTrades({ fills, fillIds, trades, tradeEventIds, tradeIds }: DecidedRows): RawBuilder<unknown> {
  const column = <K extends keyof TradeRecord>(key: K) => trades.map((row) => row[key]);
  return sql`
    INSERT INTO trades (id, option_id, event_id, fill_id, order_id, user_id, side, action, quantity, price_cents,
      fee_cents, liquidity)
    OVERRIDING SYSTEM VALUE
    SELECT v.id, v.option_id, v.event_id, v.fill_id, v.order_id, v.user_id, v.side, v.action,
      v.quantity, v.price_cents, v.fee_cents, v.liquidity
    FROM unnest(${numberArray(tradeIds)}::bigint[], ${numberArray(tradeEventIds)}::bigint[],
      ${numberArray(trades.map((t) => (fills[t.fillIndex] as DecidedFill).optionId))}::bigint[],
      ${numberArray(trades.map((t) => fillIds[t.fillIndex] as number))}::bigint[], ${numberArray(column('orderId'))}::bigint[],
      ${numberArray(column('userId'))}::bigint[], ${textArray(column('side'))}::text[], ${textArray(column('action'))}::text[],
      ${numberArray(column('quantity'))}::bigint[], ${numberArray(column('priceCents'))}::int[], ${numberArray(column('feeCents'))}::bigint[],
      ${textArray(column('liquidity'))}::text[])
      AS v(id, event_id, option_id, fill_id, order_id, user_id, side, action, quantity, price_cents, fee_cents,
        liquidity)`;
}

function updateOrders(orders: OrderState[], bookVersions: unknown): RawBuilder<unknown> {
  return sql`
    UPDATE orders SET quantity = v.quantity, filled_quantity = v.filled, reserved_cents = v.reserved,
      status = v.status, cancel_reason = coalesce(v.reason, orders.cancel_reason), updated_at = now(),
      book_version = v.book_version
    FROM unnest(${numberArray(orders.map((o) => o.id))}::bigint[], ${numberArray(orders.map((o) => o.quantity))}::bigint[],
      ${numberArray(orders.map((o) => o.filledQuantity))}::bigint[], ${numberArray(orders.map((o) => o.reservedCents))}::bigint[],
      ${textArray(orders.map((o) => o.status))}::text[], ${textArray(orders.map((o) => o.cancelReason))}::text[],
      ${bookVersions}::bigint[])
      AS v(id, quantity, filled, reserved, status, reason, book_version)
    WHERE orders.id = v.id`;
}

function upsertPositions(positions: DecidedRows['positions']): RawBuilder<unknown> {
  return sql`
    INSERT INTO positions (option_id, user_id, side, quantity, reserved_quantity, cost_cents, realized_pnl_cents)
    SELECT * FROM unnest(${numberArray(positions.map((p) => p.optionId))}::bigint[], ${numberArray(positions.map((p) => p.userId))}::bigint[],
      ${textArray(positions.map((p) => p.side))}::text[], ${numberArray(positions.map((p) => p.state.quantity))}::bigint[],
      ${numberArray(positions.map((p) => p.state.reservedQuantity))}::bigint[],
      ${numberArray(positions.map((p) => p.state.costCents))}::bigint[],
      ${numberArray(positions.map((p) => p.state.realizedPnlCents))}::bigint[])
    ON CONFLICT (user_id, option_id, side) DO UPDATE SET quantity = excluded.quantity,
      reserved_quantity = excluded.reserved_quantity, cost_cents = excluded.cost_cents,
      realized_pnl_cents = excluded.realized_pnl_cents, updated_at = now()`;
}

function updateOptions(options: OptionChange[]): RawBuilder<unknown> {
  const column = <K extends keyof OptionChange>(key: K) => options.map((row) => row[key]);
  return sql`
    UPDATE options SET amm_yes_shares = v.amm_yes, amm_no_shares = v.amm_no, pool_yes_shares = v.pool_yes,
      pool_no_shares = v.pool_no, pairs_minted = options.pairs_minted + v.minted,
      pairs_merged = options.pairs_merged + v.merged, volume_shares = options.volume_shares + v.traded_shares,
      volume_cents = options.volume_cents + v.traded_cents, amm_cash_cents = options.amm_cash_cents + v.house_cash,
      last_yes_price = coalesce(v.last_price, options.last_yes_price),
      book_version = options.book_version + CASE WHEN v.bump THEN 1 ELSE 0 END
    FROM unnest(${numberArray(column('optionId'))}::bigint[], ${numberArray(column('ammYesShares'))}::bigint[],
      ${numberArray(column('ammNoShares'))}::bigint[], ${numberArray(column('poolYesShares'))}::bigint[], ${numberArray(column('poolNoShares'))}::bigint[],
      ${numberArray(column('pairsMinted'))}::bigint[], ${numberArray(column('pairsMerged'))}::bigint[], ${numberArray(column('volumeShares'))}::bigint[],
      ${numberArray(column('volumeCents'))}::bigint[], ${numberArray(column('houseCashCents'))}::bigint[], ${numberArray(column('lastYesPrice'))}::int[],
      ${booleanArray(column('bookChanged'))}::boolean[])
      AS v(id, amm_yes, amm_no, pool_yes, pool_no, minted, merged, traded_shares, traded_cents, house_cash,
        last_price, bump)
    WHERE options.id = v.id
    RETURNING options.id, options.book_version`;
}

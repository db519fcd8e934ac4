import { positionKey } from '../../exchange/execution.js';
import { House, type MakerInventory } from '../../exchange/house.js';
import type { AmmState } from '../../exchange/lmsr.js';
import type { OrderState } from '../../exchange/orders.js';
import type { PositionState } from '../../exchange/positions.js';
import type { HouseMakerColumns, LockedMarket, OrderRow, PositionRow } from './repository.js';

/** What the trading rows mean to the exchange core, and back. */

/** The option's house market maker, or null when it has none. */
export function houseMakerOf(option: HouseMakerColumns): AmmState | null {
  if (option.liquidity_b <= 0) return null;
  return {
    liquidityCents: option.liquidity_b,
    offset: option.amm_offset,
    yesShares: option.amm_yes_shares,
    noShares: option.amm_no_shares,
  };
}

/**
 * The house quote in an option's book, the one rule behind the order book, the stream's snapshots and the tickers:
 * an exclusive event's one maker quoting this option, or the option's own maker; only while the market is open.
 */
export function bookHouseOf(
  option: HouseMakerColumns & {
    id: number;
    exclusive: boolean;
    event_liquidity_b: number;
    event_status: string;
  },
  makers: (MakerInventory & { optionId: number })[],
): AmmState | null {
  if (option.event_status !== 'open') return null;
  if (!option.exclusive) return houseMakerOf(option);
  return eventHouseOf(option.event_liquidity_b, makers)?.quote(option.id) ?? null;
}

/** An exclusive event's maker inventory as read in JSON: [optionId, offset, YES shares, NO shares] per option. */
export function makerInventoriesOf(
  makers: [number, number, number, number][] | null,
): (MakerInventory & { optionId: number })[] {
  return (makers ?? []).map(([id, offset, yesShares, noShares]) => ({
    optionId: Number(id),
    offset: Number(offset),
    yesShares: Number(yesShares),
    noShares: Number(noShares),
  }));
}

/** The house maker of a market under its lock: the exclusive event's one maker, or the option's own. */
export function houseOf(market: LockedMarket): House | null {
  if (!market.exclusive) {
    const option = market.options[0];
    return option ? House.ofOption(option.id, houseMakerOf(option)) : null;
  }
  return eventHouseOf(
    market.eventLiquidityCents,
    market.options.map((option) => ({
      optionId: option.id,
      offset: option.amm_offset,
      yesShares: option.amm_yes_shares,
      noShares: option.amm_no_shares,
    })),
  );
}

/** An exclusive event's house maker from its inventory in each option. */
export function eventHouseOf(
  liquidityCents: number,
  makers: (MakerInventory & { optionId: number })[],
): House | null {
  return House.ofEvent(
    liquidityCents,
    new Map(makers.map(({ optionId, ...inventory }) => [optionId, inventory])),
  );
}

export function orderStateOf(row: OrderRow): OrderState {
  return {
    id: row.id,
    optionId: row.option_id,
    userId: row.user_id,
    kind: row.kind,
    side: row.side,
    action: row.action,
    priceCents: row.price_cents,
    bookSide: row.book_side,
    bookPrice: row.book_price,
    quantity: row.quantity,
    filledQuantity: row.filled_quantity,
    reservedCents: row.reserved_cents,
    status: row.status,
    cancelReason: row.cancel_reason,
    clientOrderId: row.client_order_id,
    timeInForce: row.time_in_force,
    postOnly: row.post_only,
    expiresAt: row.expires_at,
    placedBy: row.placed_by,
    replacesOrderId: row.replaces_order_id,
    createdAt: row.created_at,
  };
}

/** The row an order is written as (`updatedAt`: the transaction's clock; `bookVersion`: the book it leaves). */
export function orderRowOf(order: OrderState, updatedAt: Date, bookVersion: number): OrderRow {
  return {
    id: order.id,
    user_id: order.userId,
    option_id: order.optionId,
    kind: order.kind,
    side: order.side,
    action: order.action,
    price_cents: order.priceCents,
    book_side: order.bookSide,
    book_price: order.bookPrice,
    quantity: order.quantity,
    filled_quantity: order.filledQuantity,
    reserved_cents: order.reservedCents,
    status: order.status,
    cancel_reason: order.cancelReason,
    client_order_id: order.clientOrderId,
    expires_at: order.expiresAt,
    time_in_force: order.timeInForce,
    post_only: order.postOnly,
    placed_by: order.placedBy,
    replaces_order_id: order.replacesOrderId,
    created_at: order.createdAt,
    updated_at: updatedAt,
    book_version: bookVersion,
  };
}

export function positionStateOf(row: PositionRow): PositionState {
  return {
    quantity: row.quantity,
    reservedQuantity: row.reserved_quantity,
    costCents: row.cost_cents,
    realizedPnlCents: row.realized_pnl_cents,
  };
}

/** Position states by holder, option and side (positionKey). */
export function positionMap(rows: PositionRow[]): Map<string, PositionState> {
  return new Map(
    rows.map((row) => [positionKey(row.user_id, row.option_id, row.side), positionStateOf(row)]),
  );
}

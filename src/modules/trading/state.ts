import { positionKey } from '../../exchange/execution.js';
import type { Posting } from '../../exchange/ledger.js';
import { type AmmState, ammLevels } from '../../exchange/lmsr.js';
import type { BookSide } from '../../exchange/order-book.js';
import type { PositionState } from '../../exchange/positions.js';
import type { LockedOption, OrderRow, PositionRow } from './repository.js';

/** What the trading rows mean to the exchange core, for both order paths (service.ts and batch.ts). */

/** The option's house market maker, or null when it has none. */
export function ammOf(option: LockedOption): AmmState | null {
  if (option.liquidity_b <= 0) return null;
  return {
    liquidityCents: option.liquidity_b,
    offset: option.amm_offset,
    yesShares: option.amm_yes_shares,
    noShares: option.amm_no_shares,
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

/** Position states by holder and side (positionKey). */
export function positionMap(rows: PositionRow[]): Map<string, PositionState> {
  return new Map(rows.map((row) => [positionKey(row.user_id, row.side), positionStateOf(row)]));
}

/** Reserved cash of ended BUY orders goes back to cash. */
export function releasePostings(orders: OrderRow[]): Posting[] {
  return orders
    .filter((o) => o.action === 'BUY' && o.reserved_cents > 0)
    .flatMap((o) => [
      { account: { kind: 'reserved' as const, userId: o.user_id }, amount: -o.reserved_cents },
      { account: { kind: 'cash' as const, userId: o.user_id }, amount: o.reserved_cents },
    ]);
}

/**
 * The ladder levels a change is reported with, in ladder order, with the house quantity at each: the levels it
 * touched (`side:price` keys) plus every level where the house quote moved. The caller adds the user quantity.
 */
export function reportedLevels(
  touched: Set<string>,
  amm: AmmState | null,
  ammBefore: AmmState | null,
): { side: BookSide; priceCents: number; houseQuantity: number }[] {
  const house = houseQuantities(amm);
  const before = houseQuantities(ammBefore);
  const keys = new Set(touched);
  for (const key of new Set([...house.keys(), ...before.keys()]))
    if (house.get(key) !== before.get(key)) keys.add(key);
  return [...keys]
    .map((key) => {
      const [side, price] = key.split(':') as [BookSide, string];
      return { side, priceCents: Number(price), houseQuantity: house.get(key) ?? 0 };
    })
    .sort((a, b) => (a.side === b.side ? a.priceCents - b.priceCents : a.side === 'bid' ? -1 : 1));
}

function houseQuantities(amm: AmmState | null): Map<string, number> {
  const out = new Map<string, number>();
  if (!amm) return out;
  const levels = ammLevels(amm);
  for (const [price, quantity] of levels.bids) out.set(`bid:${price}`, quantity);
  for (const [price, quantity] of levels.asks) out.set(`ask:${price}`, quantity);
  return out;
}

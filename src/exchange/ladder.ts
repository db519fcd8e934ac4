import { type AmmState, ammAskQuantity, ammBidQuantity } from './lmsr.js';
import { MAX_PRICE, MIN_PRICE } from './money.js';
import type { BookSide } from './order-book.js';

/** A level of an option's YES ladder as traders see it: resting orders and the house quote at one price. */
export interface LadderLevel {
  side: BookSide;
  priceCents: number;
  /** Resting user quantity plus the house quantity. */
  quantity: number;
  /** Resting user orders (the house quote is not counted as an order). */
  orders: number;
  houseQuantity: number;
}

/** The resting user orders of one option, aggregated per level: the in-memory book, or rows read from the database. */
export interface RestingLevels {
  at(side: BookSide, priceCents: number): { quantity: number; orders: number };
  /** Every level holding at least one order. */
  occupied(): Iterable<{ side: BookSide; priceCents: number }>;
}

/** `side:price`, the name of a ladder level. */
export type LevelKey = `${BookSide}:${number}`;

export function levelKey(side: BookSide, priceCents: number): LevelKey {
  return `${side}:${priceCents}`;
}

/**
 * The one way a ladder level is stated, for the order book read, the stream's snapshot and every delta: at the
 * given levels (a delta: each as it now stands, empty ones included), or at every level that holds anything (a
 * snapshot). `house` is the house maker of an open market, null when the market is not open or has none. Bids
 * come first, best first, then asks, best first.
 */
export function ladderLevels(
  resting: RestingLevels,
  house: AmmState | null,
  at?: Iterable<LevelKey>,
): LadderLevel[] {
  const keys = new Set<LevelKey>(at ?? []);
  if (!at) {
    for (const { side, priceCents } of resting.occupied()) keys.add(levelKey(side, priceCents));
    for (const key of houseQuotes(house).keys()) keys.add(key);
  }
  const levels: LadderLevel[] = [];
  for (const key of keys) {
    const [side, price] = key.split(':') as [BookSide, string];
    const priceCents = Number(price);
    const user = resting.at(side, priceCents);
    const houseQuantity = houseQuantityAt(house, side, priceCents);
    levels.push({
      side,
      priceCents,
      quantity: user.quantity + houseQuantity,
      orders: user.orders,
      houseQuantity,
    });
  }
  return levels.sort((a, b) =>
    a.side !== b.side
      ? a.side === 'bid'
        ? -1
        : 1
      : a.side === 'bid'
        ? b.priceCents - a.priceCents
        : a.priceCents - b.priceCents,
  );
}

/** The house maker's quantity at one level of the ladder. */
function houseQuantityAt(house: AmmState | null, side: BookSide, priceCents: number): number {
  if (!house) return 0;
  return side === 'bid' ? ammBidQuantity(house, priceCents) : ammAskQuantity(house, priceCents);
}

/** Every level the house quotes, with its quantity. */
export function houseQuotes(house: AmmState | null): Map<LevelKey, number> {
  const quotes = new Map<LevelKey, number>();
  if (!house) return quotes;
  for (let price = MIN_PRICE; price <= MAX_PRICE; price++) {
    const bid = ammBidQuantity(house, price);
    if (bid > 0) quotes.set(levelKey('bid', price), bid);
    const ask = ammAskQuantity(house, price);
    if (ask > 0) quotes.set(levelKey('ask', price), ask);
  }
  return quotes;
}

/** The levels where the house quote differs between two states of the maker (in no particular order). */
export function houseMoves(before: AmmState | null, after: AmmState | null): LevelKey[] {
  if (before === after || (before && after && sameMaker(before, after))) return [];
  const moved: LevelKey[] = [];
  for (let price = MIN_PRICE; price <= MAX_PRICE; price++) {
    if (houseQuantityAt(before, 'bid', price) !== houseQuantityAt(after, 'bid', price))
      moved.push(levelKey('bid', price));
    if (houseQuantityAt(before, 'ask', price) !== houseQuantityAt(after, 'ask', price))
      moved.push(levelKey('ask', price));
  }
  return moved;
}

/** Two states of the maker that quote the same ladder. */
function sameMaker(a: AmmState, b: AmmState): boolean {
  return (
    a.liquidityCents === b.liquidityCents &&
    a.offset === b.offset &&
    a.yesShares === b.yesShares &&
    a.noShares === b.noShares &&
    (a.shift ?? 0) === (b.shift ?? 0)
  );
}

/** Aggregated resting levels from rows such as a database read returns. */
export function restingLevelsOf(
  rows: Iterable<{ side: BookSide; priceCents: number; quantity: number; orders: number }>,
): RestingLevels {
  const byKey = new Map<LevelKey, { side: BookSide; priceCents: number; quantity: number; orders: number }>();
  for (const row of rows) if (row.orders > 0) byKey.set(levelKey(row.side, row.priceCents), row);
  return {
    at: (side, priceCents) => byKey.get(levelKey(side, priceCents)) ?? { quantity: 0, orders: 0 },
    occupied: () => byKey.values(),
  };
}

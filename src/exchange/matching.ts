import { type AmmState, ammAskQuantity, ammBidQuantity } from './lmsr.js';
import { type Action, MAX_PRICE, MIN_PRICE, type Side } from './money.js';
import { type BookSide, type OrderBook, type RestingOrder, toLadder } from './order-book.js';

export type FillKind = 'mint' | 'transfer' | 'merge';

export interface IncomingOrder {
  id: number;
  userId: number;
  side: Side;
  action: Action;
  /** Worst acceptable price in the order's own side (the most a BUY pays, the least a SELL accepts). */
  limitPrice: number;
  quantity: number;
}

export type Maker = { kind: 'order'; order: RestingOrder } | { kind: 'amm' };

export interface Fill {
  maker: Maker;
  makerSide: Side;
  makerAction: Action;
  /** Execution price in YES terms: always the resting order's (or the house quote's) price. */
  yesPrice: number;
  quantity: number;
  kind: FillKind;
}

export interface MatchResult {
  fills: Fill[];
  filledQuantity: number;
  remaining: number;
  /** The taker's own resting orders met on the way: cancelled, never filled (maker-side self-trade prevention). */
  selfTradeCancels: RestingOrder[];
}

/** What the incoming order is after its match: filled, resting (open or partly filled), or its rest cancelled. */
export function takerStatus(
  match: MatchResult,
  restingQuantity: number,
): 'filled' | 'partially_filled' | 'open' | 'cancelled' {
  if (match.remaining === 0) return 'filled';
  if (restingQuantity > 0) return match.filledQuantity > 0 ? 'partially_filled' : 'open';
  return 'cancelled';
}

export function fillKind(takerAction: Action, makerAction: Action): FillKind {
  if (takerAction === 'BUY' && makerAction === 'BUY') return 'mint';
  if (takerAction === 'SELL' && makerAction === 'SELL') return 'merge';
  return 'transfer';
}

/**
 * Matches an incoming order against the book and the house market maker, by price-time priority.
 * At each price the resting orders fill first, in time order, then the house quote at that price.
 * Mutates `book` (filled and self-trade-cancelled orders leave it) and `amm` (its inventory moves).
 * The unfilled remainder is returned; whether it rests or is cancelled is the caller's decision.
 */
export function matchOrder(book: OrderBook, amm: AmmState | null, incoming: IncomingOrder): MatchResult {
  const { bookSide, bookPrice: limit } = toLadder(incoming.side, incoming.action, incoming.limitPrice);
  const opposite: BookSide = bookSide === 'bid' ? 'ask' : 'bid';
  const fills: Fill[] = [];
  const selfTradeCancels: RestingOrder[] = [];
  let remaining = incoming.quantity;

  // Best price first: a bid walks the asks up from the lowest, an ask walks the bids down from the highest.
  const step = bookSide === 'bid' ? 1 : -1;
  for (let price = bookSide === 'bid' ? MIN_PRICE : MAX_PRICE; price * step <= limit * step; price += step) {
    if (remaining === 0) break;
    const level = book.level(opposite, price);
    while (remaining > 0 && level.size > 0) {
      const order = level.peek() as RestingOrder;
      if (order.userId === incoming.userId) {
        book.remove(order.id);
        selfTradeCancels.push(order);
        continue;
      }
      const quantity = Math.min(remaining, order.remaining);
      fills.push({
        maker: { kind: 'order', order: { ...order } },
        makerSide: order.side,
        makerAction: order.action,
        yesPrice: price,
        quantity,
        kind: fillKind(incoming.action, order.action),
      });
      book.fillHead(order, quantity);
      remaining -= quantity;
    }
    if (remaining > 0 && amm)
      remaining = fillFromAmm(amm, bookSide, price, remaining, incoming.action, fills);
  }

  return { fills, filledQuantity: incoming.quantity - remaining, remaining, selfTradeCancels };
}

/**
 * How much of an incoming order would fill now, against the book and the house, without changing either: what
 * `matchOrder` would fill, the taker's own orders (which self-trade prevention cancels, never fills) left out. Stops
 * counting once the whole order is covered.
 */
export function fillableQuantity(book: OrderBook, amm: AmmState | null, incoming: IncomingOrder): number {
  const { bookSide, bookPrice: limit } = toLadder(incoming.side, incoming.action, incoming.limitPrice);
  const opposite: BookSide = bookSide === 'bid' ? 'ask' : 'bid';
  const house = amm ? { ...amm } : null;
  let remaining = incoming.quantity;
  const step = bookSide === 'bid' ? 1 : -1;
  for (let price = bookSide === 'bid' ? MIN_PRICE : MAX_PRICE; price * step <= limit * step; price += step) {
    for (const order of book.level(opposite, price).each()) {
      if (remaining === 0) return incoming.quantity;
      if (order.userId !== incoming.userId) remaining -= Math.min(remaining, order.remaining);
    }
    if (remaining > 0 && house)
      remaining = fillFromAmm(house, bookSide, price, remaining, incoming.action, []);
    if (remaining === 0) return incoming.quantity;
  }
  return incoming.quantity - remaining;
}

/**
 * Whether an order at this price would meet anything on arrival: a resting order on the other side at its price or
 * better (its owner's own included, which self-trade prevention would cancel), or a house quote there.
 */
export function crossesOnArrival(
  book: OrderBook,
  amm: AmmState | null,
  order: { side: Side; action: Action; limitPrice: number },
): boolean {
  const { bookSide, bookPrice: limit } = toLadder(order.side, order.action, order.limitPrice);
  const opposite: BookSide = bookSide === 'bid' ? 'ask' : 'bid';
  const step = bookSide === 'bid' ? 1 : -1;
  for (let price = bookSide === 'bid' ? MIN_PRICE : MAX_PRICE; price * step <= limit * step; price += step) {
    if (book.level(opposite, price).size > 0) return true;
    if (amm && (bookSide === 'bid' ? ammAskQuantity(amm, price) : ammBidQuantity(amm, price)) > 0)
      return true;
  }
  return false;
}

/**
 * The house quote at one price. Selling YES it first sells YES it holds, otherwise it buys NO (minting with the
 * taker); buying YES it first sells NO it holds, otherwise it buys YES. Either way its exposure moves by the fill.
 */
function fillFromAmm(
  amm: AmmState,
  takerBookSide: BookSide,
  price: number,
  wanted: number,
  takerAction: Action,
  fills: Fill[],
): number {
  let remaining = wanted;
  const available = takerBookSide === 'bid' ? ammAskQuantity(amm, price) : ammBidQuantity(amm, price);
  let quantity = Math.min(remaining, available);
  while (quantity > 0) {
    let makerSide: Side;
    let makerAction: Action;
    let part: number;
    if (takerBookSide === 'bid') {
      if (amm.yesShares > 0) {
        part = Math.min(quantity, amm.yesShares);
        amm.yesShares -= part;
        makerSide = 'YES';
        makerAction = 'SELL';
      } else {
        part = quantity;
        amm.noShares += part;
        makerSide = 'NO';
        makerAction = 'BUY';
      }
    } else if (amm.noShares > 0) {
      part = Math.min(quantity, amm.noShares);
      amm.noShares -= part;
      makerSide = 'NO';
      makerAction = 'SELL';
    } else {
      part = quantity;
      amm.yesShares += part;
      makerSide = 'YES';
      makerAction = 'BUY';
    }
    fills.push({
      maker: { kind: 'amm' },
      makerSide,
      makerAction,
      yesPrice: price,
      quantity: part,
      kind: fillKind(takerAction, makerAction),
    });
    quantity -= part;
    remaining -= part;
  }
  return remaining;
}

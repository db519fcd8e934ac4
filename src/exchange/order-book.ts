import type { Action, Side } from './money.js';
import { MAX_PRICE, MIN_PRICE, PAYOUT_CENTS } from './money.js';

export type BookSide = 'bid' | 'ask';

/**
 * One ladder per option, in YES prices: BUY YES and SELL NO rest as YES bids, BUY NO and SELL YES as YES asks.
 * A NO price p is the YES price 100 − p.
 */
export function toLadder(
  side: Side,
  action: Action,
  price: number,
): { bookSide: BookSide; bookPrice: number } {
  const yesPrice = side === 'YES' ? price : PAYOUT_CENTS - price;
  const bids = (side === 'YES' && action === 'BUY') || (side === 'NO' && action === 'SELL');
  return { bookSide: bids ? 'bid' : 'ask', bookPrice: yesPrice };
}

export interface RestingOrder {
  id: number;
  userId: number;
  side: Side;
  action: Action;
  bookSide: BookSide;
  bookPrice: number;
  remaining: number;
}

/** A FIFO queue of the orders resting at one price. */
class Level {
  private orders: RestingOrder[] = [];
  private head = 0;
  quantity = 0;

  get size(): number {
    return this.orders.length - this.head;
  }

  peek(): RestingOrder | undefined {
    return this.orders[this.head];
  }

  push(order: RestingOrder): void {
    this.orders.push(order);
    this.quantity += order.remaining;
  }

  /** Puts an order back in its place in time order (ids rise with time), for an undone match. */
  insert(order: RestingOrder): void {
    let at = this.orders.length;
    while (at > this.head && (this.orders[at - 1] as RestingOrder).id > order.id) at--;
    this.orders.splice(at, 0, order);
    this.quantity += order.remaining;
  }

  shift(): void {
    const order = this.orders[this.head];
    if (!order) return;
    this.quantity -= order.remaining;
    this.head++;
    if (this.head > 64 && this.head * 2 > this.orders.length) {
      this.orders = this.orders.slice(this.head);
      this.head = 0;
    }
  }

  remove(id: number): RestingOrder | undefined {
    for (let i = this.head; i < this.orders.length; i++) {
      const order = this.orders[i];
      if (order?.id === id) {
        this.orders.splice(i, 1);
        this.quantity -= order.remaining;
        return order;
      }
    }
    return undefined;
  }

  reduce(quantity: number): void {
    this.quantity -= quantity;
  }

  *each(): Generator<RestingOrder> {
    for (let i = this.head; i < this.orders.length; i++) {
      const order = this.orders[i];
      if (order) yield order;
    }
  }
}

export interface LevelView {
  price: number;
  quantity: number;
  orders: number;
}

/**
 * The resting orders of one option, by ladder side and YES price, in time order within a price. It also serves as
 * the ladder's resting levels (`at`, `occupied`).
 */
export class OrderBook {
  private readonly bids: Level[] = [];
  private readonly asks: Level[] = [];
  private readonly index = new Map<number, RestingOrder>();

  constructor(orders: Iterable<RestingOrder> = []) {
    for (let price = 0; price <= MAX_PRICE; price++) {
      this.bids.push(new Level());
      this.asks.push(new Level());
    }
    for (const order of orders) this.add(order);
  }

  private levels(side: BookSide): Level[] {
    return side === 'bid' ? this.bids : this.asks;
  }

  level(side: BookSide, price: number): Level {
    const level = this.levels(side)[price];
    if (!level) throw new RangeError(`price ${price} is off the ladder`);
    return level;
  }

  add(order: RestingOrder): void {
    if (order.remaining <= 0) throw new RangeError(`order ${order.id} has nothing to rest`);
    if (this.index.has(order.id)) throw new Error(`order ${order.id} is already on the book`);
    this.level(order.bookSide, order.bookPrice).push(order);
    this.index.set(order.id, order);
  }

  /** Puts back an order that a match took off without filling it (time priority by id is kept). */
  restore(order: RestingOrder): void {
    if (this.index.has(order.id)) throw new Error(`order ${order.id} is already on the book`);
    this.level(order.bookSide, order.bookPrice).insert(order);
    this.index.set(order.id, order);
  }

  /** Sets what is left of a resting order (another writer filled part of it); at zero it leaves the book. */
  setRemaining(id: number, remaining: number): void {
    const order = this.index.get(id);
    if (!order) return;
    if (remaining <= 0) {
      this.remove(id);
      return;
    }
    this.level(order.bookSide, order.bookPrice).reduce(order.remaining - remaining);
    order.remaining = remaining;
  }

  get(id: number): RestingOrder | undefined {
    return this.index.get(id);
  }

  has(id: number): boolean {
    return this.index.has(id);
  }

  get size(): number {
    return this.index.size;
  }

  remove(id: number): RestingOrder | undefined {
    const order = this.index.get(id);
    if (!order) return undefined;
    this.level(order.bookSide, order.bookPrice).remove(id);
    this.index.delete(id);
    return order;
  }

  /** Takes `quantity` from the order at the head of its level; removes it when it is used up. */
  fillHead(order: RestingOrder, quantity: number): void {
    const level = this.level(order.bookSide, order.bookPrice);
    if (level.peek() !== order) throw new Error(`order ${order.id} is not at the head of its level`);
    if (quantity <= 0 || quantity > order.remaining)
      throw new RangeError(`cannot fill ${quantity} of order ${order.id}`);
    if (quantity === order.remaining) {
      level.shift();
      this.index.delete(order.id);
      order.remaining = 0;
    } else {
      level.reduce(quantity);
      order.remaining -= quantity;
    }
  }

  at(side: BookSide, priceCents: number): { quantity: number; orders: number } {
    const level = this.level(side, priceCents);
    return { quantity: level.quantity, orders: level.size };
  }

  *occupied(): Generator<{ side: BookSide; priceCents: number }> {
    for (const side of ['bid', 'ask'] as const) {
      for (let price = MIN_PRICE; price <= MAX_PRICE; price++)
        if (this.level(side, price).size > 0) yield { side, priceCents: price };
    }
  }

  bestBid(): number | null {
    for (let price = MAX_PRICE; price >= MIN_PRICE; price--)
      if (this.level('bid', price).size > 0) return price;
    return null;
  }

  bestAsk(): number | null {
    for (let price = MIN_PRICE; price <= MAX_PRICE; price++)
      if (this.level('ask', price).size > 0) return price;
    return null;
  }

  /** Aggregated levels, best first: bids by descending price, asks by ascending price. */
  depth(side: BookSide): LevelView[] {
    const out: LevelView[] = [];
    const prices = side === 'bid' ? range(MAX_PRICE, MIN_PRICE) : range(MIN_PRICE, MAX_PRICE);
    for (const price of prices) {
      const level = this.level(side, price);
      if (level.size > 0) out.push({ price, quantity: level.quantity, orders: level.size });
    }
    return out;
  }

  *orders(): Generator<RestingOrder> {
    for (const side of ['bid', 'ask'] as const) {
      for (let price = MIN_PRICE; price <= MAX_PRICE; price++) yield* this.level(side, price).each();
    }
  }
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  if (from <= to) for (let i = from; i <= to; i++) out.push(i);
  else for (let i = from; i >= to; i--) out.push(i);
  return out;
}

import { executeMatch, positionKey } from '../../src/exchange/execution.js';
import { type AccountRef, accountKey, type JournalEntry, normaliseEntry } from '../../src/exchange/ledger.js';
import type { AmmState } from '../../src/exchange/lmsr.js';
import { matchOrder } from '../../src/exchange/matching.js';
import type { Action, Side } from '../../src/exchange/money.js';
import { OrderBook, toLadder } from '../../src/exchange/order-book.js';
import { applyPositionChange, EMPTY_POSITION, type PositionState } from '../../src/exchange/positions.js';

export const OPTION_ID = 1;

export interface OrderRequest {
  userId: number;
  side: Side;
  action: Action;
  price: number;
  quantity: number;
  rest: boolean;
}

interface OrderRecord {
  id: number;
  userId: number;
  side: Side;
  action: Action;
  price: number;
  quantity: number;
  filled: number;
  reservedCents: number;
  open: boolean;
}

/**
 * A whole exchange in memory, built only from the pure core: the same steps the trading service takes in a
 * transaction (check collateral, match, execute, apply postings and positions, rest or cancel the remainder).
 */
export class World {
  readonly book = new OrderBook();
  readonly balances = new Map<string, number>();
  readonly positions = new Map<string, PositionState>();
  readonly orders = new Map<number, OrderRecord>();
  readonly fills: { takerId: number; makerId: number | null; yesPrice: number; quantity: number }[] = [];
  pairsMinted = 0;
  pairsMerged = 0;
  private nextId = 1;

  constructor(
    readonly amm: AmmState | null,
    readonly feeBps = 0,
  ) {}

  balance(account: AccountRef): number {
    return this.balances.get(accountKey(account)) ?? 0;
  }

  post(entry: JournalEntry): void {
    for (const posting of normaliseEntry(entry).postings) {
      const key = accountKey(posting.account);
      this.balances.set(key, (this.balances.get(key) ?? 0) + posting.amount);
    }
  }

  fund(userId: number, cents: number): void {
    this.post({
      kind: 'credit',
      memo: 'test',
      postings: [
        { account: { kind: 'bonus' }, amount: -cents },
        { account: { kind: 'cash', userId }, amount: cents },
      ],
    });
  }

  position(userId: number, side: Side): PositionState {
    return this.positions.get(positionKey(userId, side)) ?? EMPTY_POSITION;
  }

  /** Places an order; returns null when collateral is missing (the API's 402/409). */
  place(request: OrderRequest) {
    const { userId, side, action, price, quantity } = request;
    if (action === 'BUY') {
      const needed = price * quantity + Math.ceil((price * quantity * this.feeBps) / 10_000);
      if (this.balance({ kind: 'cash', userId }) < needed) return null;
    } else {
      const held = this.position(userId, side);
      if (held.quantity - held.reservedQuantity < quantity) return null;
    }
    const id = this.nextId++;
    const match = matchOrder(this.book, this.amm, { id, userId, side, action, limitPrice: price, quantity });
    for (const cancelled of match.selfTradeCancels) this.release(cancelled.id);
    const resting = request.rest ? match.remaining : 0;
    const execution = executeMatch(
      OPTION_ID,
      { orderId: id, userId, side, action, limitPrice: price, quantity },
      match,
      { feeBps: this.feeBps, restingQuantity: resting },
    );
    this.post({ kind: 'order', memo: 'test', postings: execution.postings });
    for (const { userId: owner, side: held, change } of execution.positionChanges.values()) {
      this.positions.set(positionKey(owner, held), applyPositionChange(this.position(owner, held), change));
    }
    for (const update of execution.makerUpdates) {
      const order = this.orders.get(update.orderId) as OrderRecord;
      order.filled += update.filledQuantity;
      order.reservedCents -= update.reservedSpentCents;
      if (order.filled === order.quantity) order.open = false;
    }
    this.pairsMinted += execution.pairsMinted;
    this.pairsMerged += execution.pairsMerged;
    for (const fill of match.fills) {
      this.fills.push({
        takerId: id,
        makerId: fill.maker.kind === 'order' ? fill.maker.order.id : null,
        yesPrice: fill.yesPrice,
        quantity: fill.quantity,
      });
    }
    this.orders.set(id, {
      id,
      userId,
      side,
      action,
      price,
      quantity,
      filled: match.filledQuantity,
      reservedCents: execution.takerRestingReserveCents,
      open: resting > 0,
    });
    if (resting > 0) {
      const ladder = toLadder(side, action, price);
      this.book.add({ id, userId, side, action, ...ladder, remaining: resting });
    }
    return { id, match, execution };
  }

  cancel(orderId: number): boolean {
    const order = this.orders.get(orderId);
    if (!order?.open) return false;
    this.book.remove(orderId);
    this.release(orderId);
    return true;
  }

  /** Releases what an order held: its cash reservation or its reserved shares. */
  private release(orderId: number): void {
    const order = this.orders.get(orderId) as OrderRecord;
    order.open = false;
    const remaining = order.quantity - order.filled;
    if (order.action === 'BUY') {
      this.post({
        kind: 'release',
        memo: 'test',
        postings: [
          { account: { kind: 'reserved', userId: order.userId }, amount: -order.reservedCents },
          { account: { kind: 'cash', userId: order.userId }, amount: order.reservedCents },
        ],
      });
      order.reservedCents = 0;
    } else {
      const key = positionKey(order.userId, order.side);
      const held = this.position(order.userId, order.side);
      this.positions.set(key, { ...held, reservedQuantity: held.reservedQuantity - remaining });
    }
  }

  openOrders(): OrderRecord[] {
    return [...this.orders.values()].filter((order) => order.open);
  }
}

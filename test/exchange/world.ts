import {
  applyPositionChanges,
  type BookState,
  type DecidedFill,
  type Decision,
  decide,
  type Instruction,
} from '../../src/exchange/decision.js';
import { positionKey } from '../../src/exchange/execution.js';
import { type AccountRef, accountKey, type JournalEntry, normaliseEntry } from '../../src/exchange/ledger.js';
import type { AmmState } from '../../src/exchange/lmsr.js';
import type { Action, Side } from '../../src/exchange/money.js';
import { OrderBook } from '../../src/exchange/order-book.js';
import { isResting, type OrderState } from '../../src/exchange/orders.js';
import { EMPTY_POSITION, type PositionState } from '../../src/exchange/positions.js';

export const OPTION_ID = 1;

export interface OrderRequest {
  userId: number;
  side: Side;
  action: Action;
  price: number;
  quantity: number;
  /** A limit order whose rest rests; else a market order (immediate or cancel). */
  rest: boolean;
}

export interface Placed {
  id: number;
  order: OrderState;
  fills: DecidedFill[];
  selfTradeCancelled: OrderState[];
  feeCents: number;
}

/**
 * A whole exchange in memory, built only from the pure core: every order decided by the same `decide` the trading
 * service calls, its ledger entries, positions and orders applied as the service writes them.
 */
export class World {
  readonly state: BookState = { book: new OrderBook(), orders: new Map() };
  readonly balances = new Map<string, number>();
  readonly positions = new Map<string, PositionState>();
  readonly orders = new Map<number, OrderState>();
  pairsMinted = 0;
  pairsMerged = 0;
  private nextId = 1;

  constructor(
    readonly amm: AmmState | null,
    readonly feeBps = 0,
  ) {}

  get book(): OrderBook {
    return this.state.book;
  }

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

  /** Places an order; returns null when it is refused (the API's 402, 409). */
  place(request: OrderRequest): Placed | null {
    const { userId, side, action, price, quantity } = request;
    const id = this.nextId++;
    const decision = this.apply(userId, {
      type: 'place',
      order: {
        id,
        userId,
        kind: request.rest ? 'limit' : 'market',
        side,
        action,
        quantity,
        priceCents: price,
        expiresInHours: null,
        clientOrderId: null,
      },
    });
    const verdict = decision.verdicts[0];
    if (verdict?.type !== 'placed') return null;
    const own = decision.trades.slice(verdict.trades.from, verdict.trades.to).filter((t) => t.orderId === id);
    return {
      id,
      order: verdict.order,
      fills: decision.fills,
      selfTradeCancelled: verdict.selfTradeCancelled,
      feeCents: own.reduce((sum, trade) => sum + trade.feeCents, 0),
    };
  }

  cancel(orderId: number): boolean {
    const order = this.orders.get(orderId);
    if (!order) return false;
    const decision = this.apply(order.userId, { type: 'cancel', orderId, userId: order.userId });
    return decision.verdicts[0]?.type === 'ended';
  }

  openOrders(): OrderState[] {
    return [...this.orders.values()].filter(isResting);
  }

  /** Decides one instruction with what its user holds, and applies what it changed. */
  private apply(userId: number, instruction: Instruction): Decision {
    const holdings = {
      cash: new Map([[userId, this.balance({ kind: 'cash', userId })]]),
      positions: new Map(
        (['YES', 'NO'] as const).map((side) => [positionKey(userId, side), this.position(userId, side)]),
      ),
    };
    const decision = decide(
      this.state,
      { optionId: OPTION_ID, closed: null, amm: this.amm, feeBps: this.feeBps, now: new Date(0) },
      holdings,
      [instruction],
    );
    for (const entry of decision.entries) this.post(entry);
    for (const [key, { userId: owner, side, changes }] of decision.positions) {
      this.positions.set(key, applyPositionChanges(this.position(owner, side), changes));
    }
    for (const order of decision.orders.values()) this.orders.set(order.id, order);
    this.pairsMinted += decision.totals.pairsMinted;
    this.pairsMerged += decision.totals.pairsMerged;
    return decision;
  }
}

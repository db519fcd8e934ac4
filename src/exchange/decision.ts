import { executeMatch, positionKey, type TradeRecord } from './execution.js';
import { houseMoves, type LadderLevel, type LevelKey, ladderLevels, levelKey } from './ladder.js';
import type { JournalEntry, Posting } from './ledger.js';
import type { AmmState } from './lmsr.js';
import { type FillKind, type MatchResult, matchOrder, takerStatus } from './matching.js';
import { type Action, feeCents, type Side } from './money.js';
import { type OrderBook, toLadder } from './order-book.js';
import { type EndReason, type OrderKind, type OrderState, restingOf } from './orders.js';
import { applyPositionChange, NO_CHANGE, type PositionChange, type PositionState } from './positions.js';

/**
 * The one decision of the exchange: what a list of instructions (orders placed, cancelled, expired, a market
 * closed) does to one option's book. It is given the book, the house maker, and what the takers hold, and returns
 * everything the instructions change: orders in their final state, fills, trades, ledger entries, position changes,
 * the option's totals, the ladder levels touched as they now stand, and a verdict per instruction (placed, ended,
 * or refused with its reason). No I/O; the instructions are decided in the order given, each as if it came alone.
 */

/** The resting orders of one option: the order book and the state of each order on it. */
export interface BookState {
  book: OrderBook;
  orders: Map<number, OrderState>;
}

export interface MarketState {
  optionId: number;
  /** Null when the market takes orders; else why it does not (its state, or "past its closing time"). */
  closed: string | null;
  /** The house maker; advanced by the fills it takes part in. */
  amm: AmmState | null;
  feeBps: number;
  now: Date;
}

/** What the takers hold, read under lock: the cash of every buyer, both positions of every seller (positionKey). */
export interface Holdings {
  cash: Map<number, number>;
  positions: Map<string, PositionState>;
}

export interface NewOrder {
  /** Taken from the orders' sequence before the decision. */
  id: number;
  userId: number;
  kind: OrderKind;
  side: Side;
  action: Action;
  quantity: number;
  priceCents: number;
  expiresInHours: number | null;
  clientOrderId: string | null;
}

export type Instruction =
  | { type: 'place'; order: NewOrder }
  | { type: 'cancel'; orderId: number; userId: number }
  /** Its time is up (the caller read its expiry); it ends if it still rests. */
  | { type: 'expire'; orderId: number }
  | { type: 'close' };

export type Refusal =
  | { code: 'MARKET_CLOSED'; state: string }
  | { code: 'INSUFFICIENT_FUNDS'; neededCents: number; availableCents: number }
  | { code: 'INSUFFICIENT_SHARES'; needed: number; available: number }
  | { code: 'NO_LIQUIDITY' }
  | { code: 'ORDER_NOT_OPEN' };

export type Verdict =
  | {
      type: 'placed';
      order: OrderState;
      /** Its slice of the decision's trades (its own and its makers'). */
      trades: { from: number; to: number };
      /** The resting orders it filled, as they stood right after it. */
      makers: OrderState[];
      /** The taker's own resting orders it met: cancelled, never filled. */
      selfTradeCancelled: OrderState[];
    }
  | { type: 'ended'; reason: 'cancelled' | 'expired' | 'market_closed'; orders: OrderState[] }
  | { type: 'unchanged' }
  | { type: 'refused'; refusal: Refusal };

export interface DecidedFill {
  takerOrderId: number;
  makerOrderId: number | null;
  yesPrice: number;
  quantity: number;
  kind: FillKind;
  takerSide: Side;
  takerAction: Action;
}

export interface OptionTotals {
  pairsMinted: number;
  pairsMerged: number;
  volumeShares: number;
  volumeCents: number;
  lastYesPrice: number | null;
}

export interface Decision {
  verdicts: Verdict[];
  /** Every order to write in its final state: the new ones (`newOrderIds`) and the resting ones changed. */
  orders: Map<number, OrderState>;
  newOrderIds: Set<number>;
  fills: DecidedFill[];
  /** Trades by fill (`fillIndex` into `fills`). */
  trades: TradeRecord[];
  entries: JournalEntry[];
  /** Each holder's position changes, in the order they happened (positionKey). */
  positions: Map<string, { userId: number; side: Side; changes: PositionChange[] }>;
  totals: OptionTotals;
  /** Whether the book changed at all (orders, or the house quotes: a market close takes them away). */
  changed: boolean;
  /** The house maker after the instructions (null when the option has none). */
  house: AmmState | null;
  /** The ladder levels the instructions changed, as they now stand; empty when nothing changed. */
  levels: LadderLevel[];
}

/** Decides the instructions in order; advances `book` and `market.amm` to the state after them. */
export function decide(
  book: BookState,
  market: MarketState,
  holdings: Holdings,
  instructions: Instruction[],
): Decision {
  const decider = new Decider(book, market, holdings);
  const verdicts = instructions.map((instruction) => decider.run(instruction));
  return decider.finish(verdicts);
}

/** What the orders of a decision changed, folded onto a holder's position as it stood before. */
export function applyPositionChanges(position: PositionState, changes: PositionChange[]): PositionState {
  return changes.reduce(applyPositionChange, position);
}

class Decider {
  private readonly cash: Map<number, number>;
  private readonly positions: Map<string, PositionState>;
  private readonly houseBefore: AmmState | null;
  private readonly touched = new Set<LevelKey>();
  private closed: string | null;
  private readonly out: Omit<Decision, 'verdicts' | 'levels' | 'house' | 'changed'> = {
    orders: new Map(),
    newOrderIds: new Set(),
    fills: [],
    trades: [],
    entries: [],
    positions: new Map(),
    totals: { pairsMinted: 0, pairsMerged: 0, volumeShares: 0, volumeCents: 0, lastYesPrice: null },
  };

  constructor(
    private readonly state: BookState,
    private readonly market: MarketState,
    holdings: Holdings,
  ) {
    this.cash = new Map(holdings.cash);
    this.positions = new Map(holdings.positions);
    this.closed = market.closed;
    this.houseBefore = market.closed === null && market.amm ? { ...market.amm } : null;
  }

  run(instruction: Instruction): Verdict {
    switch (instruction.type) {
      case 'place':
        return this.place(instruction.order);
      case 'cancel': {
        const order = this.state.orders.get(instruction.orderId);
        if (!order || order.userId !== instruction.userId) return refused({ code: 'ORDER_NOT_OPEN' });
        return { type: 'ended', reason: 'cancelled', orders: [this.endOrder(order, 'cancelled_by_user')] };
      }
      case 'expire': {
        const order = this.state.orders.get(instruction.orderId);
        if (!order) return { type: 'unchanged' };
        return { type: 'ended', reason: 'expired', orders: [this.endOrder(order, 'expired')] };
      }
      case 'close': {
        const ended = [...this.state.orders.values()].map((order) => this.endOrder(order, 'market_closed'));
        this.closed ??= 'closed';
        return { type: 'ended', reason: 'market_closed', orders: ended };
      }
    }
  }

  finish(verdicts: Verdict[]): Decision {
    const houseAfter = this.closed === null ? this.market.amm : null;
    const moves = houseMoves(this.houseBefore, houseAfter);
    const changed = this.out.orders.size > 0 || moves.length > 0;
    const keys = changed ? [...this.touched, ...moves] : [];
    return {
      ...this.out,
      verdicts,
      changed,
      house: this.market.amm,
      levels: ladderLevels(this.state.book, houseAfter, keys),
    };
  }

  private place(order: NewOrder): Verdict {
    if (this.closed !== null) return refused({ code: 'MARKET_CLOSED', state: this.closed });
    const short = this.missingCollateral(order);
    if (short) return refused(short);
    const { book } = this.state;
    const ladder = toLadder(order.side, order.action, order.priceCents);
    const taker = {
      id: order.id,
      orderId: order.id,
      userId: order.userId,
      side: order.side,
      action: order.action,
      limitPrice: order.priceCents,
      quantity: order.quantity,
    };
    const match = matchOrder(book, this.market.amm, taker);
    if (order.kind === 'market' && match.filledQuantity === 0) {
      // Nothing happened: the own orders it met go back where they were.
      for (const own of match.selfTradeCancels) book.restore(own);
      return refused({ code: 'NO_LIQUIDITY' });
    }
    const restingQuantity = order.kind === 'limit' ? match.remaining : 0;
    const execution = executeMatch(this.market.optionId, taker, match, {
      feeBps: this.market.feeBps,
      restingQuantity,
    });
    const met = match.selfTradeCancels.map((own) => this.state.orders.get(own.id) as OrderState);
    const releases = met.flatMap(releasePostings);
    const selfTradeCancelled = met.map((own) => this.endOrder(own, 'self_trade_prevented', true));
    this.post({
      kind: 'order',
      memo: `${order.kind} order ${order.id}: ${order.action} ${order.quantity} ${order.side} @ ${order.priceCents}`,
      userId: order.userId,
      ref: { type: 'order', id: order.id },
      postings: [...execution.postings, ...releases],
    });
    for (const { userId, side, change } of execution.positionChanges.values())
      this.changePosition(userId, side, change);
    const trades = this.recordFills(order, match, execution.trades, ladder.bookSide);
    const makers = execution.makerUpdates.map((update) => this.fillMaker(update));
    const status = takerStatus(match, restingQuantity);
    const placed: OrderState = {
      id: order.id,
      userId: order.userId,
      kind: order.kind,
      side: order.side,
      action: order.action,
      priceCents: order.priceCents,
      ...ladder,
      quantity: order.quantity,
      filledQuantity: match.filledQuantity,
      reservedCents: execution.takerRestingReserveCents,
      status,
      cancelReason: status === 'cancelled' ? 'unfilled_remainder' : null,
      clientOrderId: order.clientOrderId,
      expiresAt: order.expiresInHours
        ? new Date(this.market.now.getTime() + order.expiresInHours * 3_600_000)
        : null,
      createdAt: this.market.now,
    };
    this.out.orders.set(placed.id, placed);
    this.out.newOrderIds.add(placed.id);
    if (restingQuantity > 0) {
      book.add(restingOf(placed));
      this.state.orders.set(placed.id, placed);
      this.touched.add(levelKey(ladder.bookSide, ladder.bookPrice));
    }
    this.addTotals(execution);
    return { type: 'placed', order: placed, trades, makers, selfTradeCancelled };
  }

  /** Why the taker cannot pay for the order (cash for a BUY with its fee, free shares for a SELL), if it cannot. */
  private missingCollateral(order: NewOrder): Refusal | null {
    if (order.action === 'BUY') {
      const notional = order.priceCents * order.quantity;
      const neededCents = notional + feeCents(notional, this.market.feeBps);
      const availableCents = this.cash.get(order.userId) ?? 0;
      return availableCents < neededCents
        ? { code: 'INSUFFICIENT_FUNDS', neededCents, availableCents }
        : null;
    }
    const held = this.positions.get(positionKey(order.userId, order.side));
    if (!held) throw new Error(`the holdings of seller ${order.userId} were not given`);
    const available = held.quantity - held.reservedQuantity;
    return available < order.quantity
      ? { code: 'INSUFFICIENT_SHARES', needed: order.quantity, available }
      : null;
  }

  /** Records a match's fills and trades; returns the taker's slice of the trades. */
  private recordFills(
    order: NewOrder,
    match: MatchResult,
    trades: TradeRecord[],
    bookSide: 'bid' | 'ask',
  ): { from: number; to: number } {
    const fillBase = this.out.fills.length;
    const from = this.out.trades.length;
    const makerSide = bookSide === 'bid' ? 'ask' : 'bid';
    for (const fill of match.fills) {
      const makerOrderId = fill.maker.kind === 'order' ? fill.maker.order.id : null;
      if (makerOrderId !== null) this.touched.add(levelKey(makerSide, fill.yesPrice));
      this.out.fills.push({
        takerOrderId: order.id,
        makerOrderId,
        yesPrice: fill.yesPrice,
        quantity: fill.quantity,
        kind: fill.kind,
        takerSide: order.side,
        takerAction: order.action,
      });
    }
    for (const trade of trades) this.out.trades.push({ ...trade, fillIndex: trade.fillIndex + fillBase });
    return { from, to: this.out.trades.length };
  }

  /** A resting order after its fills in one match (it leaves the book when used up; the book already moved). */
  private fillMaker(update: {
    orderId: number;
    filledQuantity: number;
    reservedSpentCents: number;
  }): OrderState {
    const before = this.state.orders.get(update.orderId) as OrderState;
    const filledQuantity = before.filledQuantity + update.filledQuantity;
    const after: OrderState = {
      ...before,
      filledQuantity,
      reservedCents: before.reservedCents - update.reservedSpentCents,
      status: filledQuantity === before.quantity ? 'filled' : 'partially_filled',
    };
    if (after.status === 'filled') this.state.orders.delete(after.id);
    else this.state.orders.set(after.id, after);
    this.out.orders.set(after.id, after);
    return after;
  }

  /**
   * Ends a resting order: it leaves the book and gives back what it held (reserved cash to cash, reserved shares
   * to its holder). A self-trade cancel's release goes into the entry of the order that caused it; any other end
   * has an entry of its own.
   */
  private endOrder(order: OrderState, reason: EndReason, withinTaker = false): OrderState {
    this.state.book.remove(order.id);
    this.state.orders.delete(order.id);
    this.touched.add(levelKey(order.bookSide, order.bookPrice));
    const left = order.quantity - order.filledQuantity;
    if (order.action === 'SELL')
      this.changePosition(order.userId, order.side, { ...NO_CHANGE, newlyReserved: -left });
    const ended: OrderState = {
      ...order,
      status: reason === 'expired' ? 'expired' : 'cancelled',
      reservedCents: 0,
      cancelReason: reason,
    };
    this.out.orders.set(ended.id, ended);
    if (!withinTaker) {
      this.post({
        kind: reason === 'expired' ? 'order_expiry' : 'order_cancel',
        memo: `order ${order.id} ended: ${reason}`,
        userId: order.userId,
        ref: { type: 'order', id: order.id },
        postings: releasePostings(order),
      });
    }
    return ended;
  }

  private changePosition(userId: number, side: Side, change: PositionChange): void {
    const key = positionKey(userId, side);
    const entry = this.out.positions.get(key) ?? { userId, side, changes: [] };
    entry.changes.push(change);
    this.out.positions.set(key, entry);
    const known = this.positions.get(key);
    if (known) this.positions.set(key, applyPositionChange(known, change));
  }

  /** Adds a ledger entry; the cash it moves for a taker counts for that taker's next order in the same decision. */
  private post(entry: JournalEntry): void {
    if (entry.postings.length === 0) return;
    this.out.entries.push(entry);
    for (const { account, amount } of entry.postings) {
      if (account.kind !== 'cash') continue;
      const cash = this.cash.get(account.userId);
      if (cash !== undefined) this.cash.set(account.userId, cash + amount);
    }
  }

  private addTotals(execution: ReturnType<typeof executeMatch>): void {
    const totals = this.out.totals;
    totals.pairsMinted += execution.pairsMinted;
    totals.pairsMerged += execution.pairsMerged;
    totals.volumeShares += execution.volumeShares;
    totals.volumeCents += execution.takerNotionalCents;
    if (execution.lastYesPrice !== null) totals.lastYesPrice = execution.lastYesPrice;
  }
}

function refused(refusal: Refusal): Verdict {
  return { type: 'refused', refusal };
}

/** Reserved cash of an ended BUY goes back to cash. */
function releasePostings(order: OrderState): Posting[] {
  if (order.action !== 'BUY' || order.reservedCents <= 0) return [];
  return [
    { account: { kind: 'reserved', userId: order.userId }, amount: -order.reservedCents },
    { account: { kind: 'cash', userId: order.userId }, amount: order.reservedCents },
  ];
}

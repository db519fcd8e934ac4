import type { PoolState } from './conversions.js';
import type {
  BookState,
  Decision,
  Holdings,
  MarketState,
  NewOrder,
  OptionDecision,
  OptionTotals,
  Verdict,
} from './decision-types.js';
import { type executeMatch, positionKey, type TradeRecord } from './execution.js';
import type { House } from './house.js';
import { type KeyAccount, purchaseWorstCase } from './key-limits.js';
import { houseMoves, type LevelKey, ladderLevels, levelKey } from './ladder.js';
import type { JournalEntry, Posting } from './ledger.js';
import type { MatchResult } from './matching.js';
import type { Side } from './money.js';
import type { EndReason, OrderState } from './orders.js';
import { applyPositionChange, NO_CHANGE, type PositionChange, type PositionState } from './positions.js';

const NO_TOTALS: OptionTotals = {
  pairsMinted: 0,
  pairsMerged: 0,
  volumeShares: 0,
  volumeCents: 0,
  lastYesPrice: null,
  houseCashCents: 0,
};

/**
 * What a decision has done so far, and the bookkeeping every instruction shares: fills and trades recorded, resting
 * orders filled and ended, positions changed, ledger entries posted (funds moved count for the taker's next order),
 * the levels each option's book changed at and its totals, what each API key has used; `finish` turns it into the
 * decision. The rules of each instruction are in `Decider` (decision.ts).
 */
export abstract class DecisionRecord {
  protected readonly funds: Map<number, number>;
  protected readonly positions: Map<string, PositionState>;
  protected readonly keys: Map<string, KeyAccount>;
  protected readonly houseBefore: House | null;
  protected readonly touched = new Map<number, Set<LevelKey>>();
  protected readonly totals = new Map<number, OptionTotals>();
  protected closed: string | null;
  protected pool: PoolState | null;
  protected readonly out: Pick<
    Decision,
    'orders' | 'newOrderIds' | 'fills' | 'trades' | 'entries' | 'positions'
  > = {
    orders: new Map(),
    newOrderIds: new Set(),
    fills: [],
    trades: [],
    entries: [],
    positions: new Map(),
  };

  constructor(
    protected readonly books: Map<number, BookState>,
    protected readonly market: MarketState,
    holdings: Holdings,
  ) {
    this.funds = new Map(holdings.funds);
    this.positions = new Map(holdings.positions);
    this.keys = new Map(
      [...(holdings.keys ?? [])].map(([key, account]) => [key, { ...account, usage: { ...account.usage } }]),
    );
    this.closed = market.closed;
    this.houseBefore = market.closed === null && market.house ? market.house.clone() : null;
    this.pool = market.exclusive ? { ...market.exclusive.pool } : null;
    for (const optionId of books.keys()) {
      this.touched.set(optionId, new Set());
      this.totals.set(optionId, { ...NO_TOTALS });
    }
  }

  finish(verdicts: Verdict[]): Decision {
    const houseAfter = this.closed === null ? this.market.house : null;
    const options = new Map<number, OptionDecision>();
    for (const [optionId, state] of this.books) {
      const after = houseAfter?.quote(optionId) ?? null;
      const moves = houseMoves(this.houseBefore?.quote(optionId) ?? null, after);
      const touched = this.touched.get(optionId) as Set<LevelKey>;
      const totals = this.totals.get(optionId) as OptionTotals;
      // Fills change the book even when they leave every level as it was (two against the house that net out):
      // its version moves on, so that the fills are announced and read as any others.
      const changed = touched.size > 0 || moves.length > 0 || totals.volumeShares > 0;
      options.set(optionId, {
        totals,
        changed,
        house: this.market.house?.quote(optionId) ?? null,
        levels: changed ? ladderLevels(state.book, after, [...touched, ...moves]) : [],
      });
    }
    const converted = verdicts.some((verdict) => verdict.type === 'converted');
    return {
      ...this.out,
      verdicts,
      options,
      pool: this.pool,
      keys: this.keys,
      // An order placed is written even when it changed no book (an IOC that met nothing).
      changed:
        converted || this.out.orders.size > 0 || [...options.values()].some((option) => option.changed),
    };
  }

  /** A key's order placed: one more resting order if it rests, and a purchase counted at worst. */
  protected countKeyUse(order: NewOrder, rested: boolean): void {
    const account = order.placedBy === null ? undefined : this.keys.get(order.placedBy);
    if (!account) return;
    if (rested) account.usage.openOrders += 1;
    if (order.action === 'BUY') account.usage.dailyLossCents += purchaseWorstCase(order, this.market.feeBps);
  }

  /** A key's order left the book: one fewer resting, and what it held (never spent) no longer at risk. */
  protected countKeyRelease(order: OrderState, releasedCents: number): void {
    const account = order.placedBy === null ? undefined : this.keys.get(order.placedBy);
    if (!account) return;
    account.usage.openOrders = Math.max(0, account.usage.openOrders - 1);
    if (order.action === 'BUY') account.usage.dailyLossCents -= releasedCents;
  }

  /** Records a match's fills and trades; returns the taker's slice of the trades. */
  protected recordFills(
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
      if (makerOrderId !== null) this.touch(order.optionId, makerSide, fill.yesPrice);
      this.out.fills.push({
        optionId: order.optionId,
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
  protected fillMaker(
    state: BookState,
    update: { orderId: number; filledQuantity: number; reservedSpentCents: number },
  ): OrderState {
    const before = state.orders.get(update.orderId) as OrderState;
    const filledQuantity = before.filledQuantity + update.filledQuantity;
    const after: OrderState = {
      ...before,
      filledQuantity,
      reservedCents: before.reservedCents - update.reservedSpentCents,
      status: filledQuantity === before.quantity ? 'filled' : 'partially_filled',
    };
    if (after.status === 'filled') {
      state.orders.delete(after.id);
      this.countKeyRelease(after, 0);
    } else state.orders.set(after.id, after);
    this.out.orders.set(after.id, after);
    return after;
  }

  /**
   * Ends a resting order: it leaves the book and gives back what it held (reserved cash to transit, reserved shares
   * to its holder). A self-trade cancel's release goes into the entry of the order that caused it; any other end
   * has an entry of its own.
   */
  protected endOrder(order: OrderState, reason: EndReason, withinTaker = false): OrderState {
    const state = this.books.get(order.optionId) as BookState;
    state.book.remove(order.id);
    state.orders.delete(order.id);
    this.touch(order.optionId, order.bookSide, order.bookPrice);
    const left = order.quantity - order.filledQuantity;
    if (order.action === 'SELL')
      this.changePosition(order.userId, order.optionId, order.side, { ...NO_CHANGE, newlyReserved: -left });
    this.countKeyRelease(order, order.reservedCents);
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

  protected touch(optionId: number, side: 'bid' | 'ask', priceCents: number): void {
    this.touched.get(optionId)?.add(levelKey(side, priceCents));
  }

  protected changePosition(userId: number, optionId: number, side: Side, change: PositionChange): void {
    const key = positionKey(userId, optionId, side);
    const entry = this.out.positions.get(key) ?? { userId, optionId, side, changes: [] };
    entry.changes.push(change);
    this.out.positions.set(key, entry);
    const known = this.positions.get(key);
    if (known) this.positions.set(key, applyPositionChange(known, change));
  }

  /** Adds a ledger entry; the funds it moves for a taker count for that taker's next order in the same decision. */
  protected post(entry: JournalEntry): void {
    if (entry.postings.length === 0) return;
    this.out.entries.push(entry);
    for (const { account, amount } of entry.postings) {
      if (account.kind !== 'transit') continue;
      const funds = this.funds.get(account.userId);
      if (funds !== undefined) this.funds.set(account.userId, funds + amount);
    }
  }

  protected addTotals(optionId: number, execution: ReturnType<typeof executeMatch>): void {
    const totals = this.totals.get(optionId) as OptionTotals;
    totals.pairsMinted += execution.pairsMinted;
    totals.pairsMerged += execution.pairsMerged;
    totals.volumeShares += execution.volumeShares;
    totals.volumeCents += execution.takerNotionalCents;
    totals.houseCashCents += execution.houseCashCents;
    if (execution.lastYesPrice !== null) totals.lastYesPrice = execution.lastYesPrice;
  }
}

/** Reserved cash of an ended BUY goes back to its owner, through the owner's transit account. */
export function releasePostings(order: OrderState): Posting[] {
  if (order.action !== 'BUY' || order.reservedCents <= 0) return [];
  return [
    { account: { kind: 'reserved', userId: order.userId }, amount: -order.reservedCents },
    { account: { kind: 'transit', userId: order.userId }, amount: order.reservedCents },
  ];
}

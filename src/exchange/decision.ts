import {
  type ConversionKind,
  type ConversionLeg,
  type ConversionRequest,
  conversionNeeds,
  type PoolState,
  planConversion,
} from './conversions.js';
import { executeMatch, positionKey, type TradeRecord } from './execution.js';
import { apportion, type House } from './house.js';
import { houseMoves, type LadderLevel, type LevelKey, ladderLevels, levelKey } from './ladder.js';
import type { JournalEntry, Posting } from './ledger.js';
import type { AmmState } from './lmsr.js';
import {
  crossesOnArrival,
  type FillKind,
  fillableQuantity,
  type MatchResult,
  matchOrder,
  takerStatus,
} from './matching.js';
import { type Action, feeCents, PAYOUT_CENTS, type Side } from './money.js';
import { type OrderBook, toLadder } from './order-book.js';
import {
  type EndReason,
  type OrderKind,
  type OrderState,
  restingOf,
  rests,
  type TimeInForce,
} from './orders.js';
import { applyPositionChange, NO_CHANGE, type PositionChange, type PositionState } from './positions.js';

/**
 * The one decision of the exchange: what a list of instructions (orders placed, cancelled, expired, a market closed,
 * shares converted) does to a market: one independent option, or every option of an exclusive event, whose one house
 * maker ties their books together. It is given the books, the house maker, and what the takers hold, and returns
 * everything the instructions change: orders in their final state, fills, trades, ledger entries, position changes,
 * each option's totals and house inventory, the ladder levels touched as they now stand, and a verdict per
 * instruction (placed, ended, converted, or refused with its reason). No I/O; the instructions are decided in the
 * order given, each as if it came alone.
 */

/** The resting orders of one option: the order book and the state of each order on it. */
export interface BookState {
  book: OrderBook;
  orders: Map<number, OrderState>;
}

/** What an exclusive event adds to its market: its options in order, its conversion pool and last prices. */
export interface ExclusiveState {
  eventId: number;
  optionIds: number[];
  pool: PoolState;
  /** Each option's last traded YES price: the reference of conversions when the event has no house maker. */
  lastYesPrices: Map<number, number | null>;
}

export interface MarketState {
  /** Null when the market takes orders; else why it does not (its state, or "past its closing time"). */
  closed: string | null;
  /** Null unless conversions are open (an exclusive event before its resolution); else why they are not. */
  conversionsClosed: string | null;
  /** The house maker; advanced by the fills it takes part in. */
  house: House | null;
  /** Present for an exclusive event. */
  exclusive: ExclusiveState | null;
  feeBps: number;
  now: Date;
}

/** What the takers hold, read under lock: the cash of every buyer, the positions of every seller (positionKey). */
export interface Holdings {
  cash: Map<number, number>;
  positions: Map<string, PositionState>;
}

export interface NewOrder {
  /** Taken from the orders' sequence before the decision. */
  id: number;
  optionId: number;
  userId: number;
  kind: OrderKind;
  side: Side;
  action: Action;
  quantity: number;
  priceCents: number;
  timeInForce: TimeInForce;
  postOnly: boolean;
  /** GTD: when what rests of it expires. */
  expiresAt: Date | null;
  clientOrderId: string | null;
  /** The credential that placed it (its dead man's switch covers it). */
  placedBy: string | null;
}

/**
 * A change to a resting order. The same price and fewer shares left: the order shrinks where it stands, keeping
 * its time priority. A new price, or more shares: it is cancelled and `replacement` placed in its stead at once
 * (same side, action, time in force, expiry and post-only flag), behind every order already at that price; if the
 * replacement cannot be placed the order stays as it was.
 */
export interface Amend {
  optionId: number;
  orderId: number;
  userId: number;
  /** The shares the order is to have left to fill (null: as it has now). */
  remainingQuantity: number | null;
  /** Its new price (null: as it is). */
  priceCents: number | null;
  /** The replacement's id (taken beforehand, used only if it is placed), clientOrderId and credential. */
  replacement: { id: number; clientOrderId: string | null; placedBy: string | null };
}

export type Instruction =
  | { type: 'place'; order: NewOrder }
  | {
      type: 'cancel';
      optionId: number;
      orderId: number;
      userId: number;
      /** Why, when not at the user's own request. */
      reason?: 'heartbeat_lapsed';
    }
  | ({ type: 'amend' } & Amend)
  /** Its time is up (the caller read its expiry); it ends if it still rests. */
  | { type: 'expire'; optionId: number; orderId: number }
  /** Every resting order of the market ends, and the house stops quoting. */
  | { type: 'close' }
  | { type: 'convert'; id: number; request: ConversionRequest };

export type Refusal =
  | { code: 'MARKET_CLOSED'; state: string }
  | { code: 'INSUFFICIENT_FUNDS'; neededCents: number; availableCents: number }
  | { code: 'INSUFFICIENT_SHARES'; needed: number; available: number }
  | { code: 'NO_LIQUIDITY' }
  /** A post-only order that would meet a resting order or a house quote on arrival. */
  | { code: 'POST_ONLY_WOULD_TAKE' }
  /** A fill-or-kill order that cannot fill whole now. */
  | { code: 'FOK_NOT_FILLED'; fillableQuantity: number }
  | { code: 'ORDER_NOT_OPEN' }
  | { code: 'INVALID_CONVERSION'; reason: string };

export interface Conversion {
  id: number;
  userId: number;
  kind: ConversionKind;
  quantity: number;
  /** convert: the options whose NO was given. */
  optionIds: number[];
  cashCents: number;
  legs: ConversionLeg[];
}

export interface PlacedVerdict {
  type: 'placed';
  order: OrderState;
  /** Its slice of the decision's trades (its own and its makers'). */
  trades: { from: number; to: number };
  /** The resting orders it filled, as they stood right after it. */
  makers: OrderState[];
  /** The taker's own resting orders it met: cancelled, never filled. */
  selfTradeCancelled: OrderState[];
}

export type Verdict =
  | PlacedVerdict
  | { type: 'ended'; reason: 'cancelled' | 'expired' | 'market_closed'; orders: OrderState[] }
  /**
   * `previous`: the order as it stood before; `order`: as it stands now (the same order shrunk, or the replacement,
   * whose placing is `replacement`). An amend that changes nothing leaves `order` equal to `previous`.
   */
  | { type: 'amended'; previous: OrderState; order: OrderState; replacement: PlacedVerdict | null }
  | { type: 'converted'; conversion: Conversion }
  | { type: 'unchanged' }
  | { type: 'refused'; refusal: Refusal };

export interface DecidedFill {
  optionId: number;
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
  /** Cash the house maker received in the option (negative: paid). */
  houseCashCents: number;
}

/** What the decision did to one option. */
export interface OptionDecision {
  totals: OptionTotals;
  /** Whether its book changed (orders, the house quotes, or fills): it then has a new book version and its levels. */
  changed: boolean;
  /** The house maker's ladder in the option after the instructions (null when it has none). */
  house: AmmState | null;
  /** The ladder levels the instructions changed, as they now stand. */
  levels: LadderLevel[];
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
  positions: Map<string, { userId: number; optionId: number; side: Side; changes: PositionChange[] }>;
  /** Per option of the market: totals, house, levels. */
  options: Map<number, OptionDecision>;
  /** The exclusive event's conversion pool after the instructions (null for an independent option). */
  pool: PoolState | null;
  /** Whether anything at all is to be written. */
  changed: boolean;
}

/** Decides the instructions in order; advances `books` and `market.house` to the state after them. */
export function decide(
  books: Map<number, BookState>,
  market: MarketState,
  holdings: Holdings,
  instructions: Instruction[],
): Decision {
  const decider = new Decider(books, market, holdings);
  const verdicts = instructions.map((instruction) => decider.run(instruction));
  return decider.finish(verdicts);
}

/** What the orders of a decision changed, folded onto a holder's position as it stood before. */
export function applyPositionChanges(position: PositionState, changes: PositionChange[]): PositionState {
  return changes.reduce(applyPositionChange, position);
}

const NO_TOTALS: OptionTotals = {
  pairsMinted: 0,
  pairsMerged: 0,
  volumeShares: 0,
  volumeCents: 0,
  lastYesPrice: null,
  houseCashCents: 0,
};

class Decider {
  private readonly cash: Map<number, number>;
  private readonly positions: Map<string, PositionState>;
  private readonly houseBefore: House | null;
  private readonly touched = new Map<number, Set<LevelKey>>();
  private readonly totals = new Map<number, OptionTotals>();
  private closed: string | null;
  private pool: PoolState | null;
  private readonly out: Pick<
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
    private readonly books: Map<number, BookState>,
    private readonly market: MarketState,
    holdings: Holdings,
  ) {
    this.cash = new Map(holdings.cash);
    this.positions = new Map(holdings.positions);
    this.closed = market.closed;
    this.houseBefore = market.closed === null && market.house ? market.house.clone() : null;
    this.pool = market.exclusive ? { ...market.exclusive.pool } : null;
    for (const optionId of books.keys()) {
      this.touched.set(optionId, new Set());
      this.totals.set(optionId, { ...NO_TOTALS });
    }
  }

  run(instruction: Instruction): Verdict {
    switch (instruction.type) {
      case 'place':
        return this.place(instruction.order);
      case 'cancel': {
        const order = this.books.get(instruction.optionId)?.orders.get(instruction.orderId);
        if (!order || order.userId !== instruction.userId) return refused({ code: 'ORDER_NOT_OPEN' });
        const reason = instruction.reason ?? 'cancelled_by_user';
        return { type: 'ended', reason: 'cancelled', orders: [this.endOrder(order, reason)] };
      }
      case 'amend':
        return this.amend(instruction);
      case 'expire': {
        const order = this.books.get(instruction.optionId)?.orders.get(instruction.orderId);
        if (!order) return { type: 'unchanged' };
        return { type: 'ended', reason: 'expired', orders: [this.endOrder(order, 'expired')] };
      }
      case 'close': {
        const resting = [...this.books.values()].flatMap((state) => [...state.orders.values()]);
        const ended = resting.map((order) => this.endOrder(order, 'market_closed'));
        this.closed ??= 'closed';
        return { type: 'ended', reason: 'market_closed', orders: ended };
      }
      case 'convert':
        return this.convert(instruction.id, instruction.request);
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
      // An order placed is written even when it changed no book (an IOC that met nothing).
      changed:
        converted || this.out.orders.size > 0 || [...options.values()].some((option) => option.changed),
    };
  }

  private place(order: NewOrder, replacesOrderId: number | null = null): Verdict {
    if (this.closed !== null) return refused({ code: 'MARKET_CLOSED', state: this.closed });
    const state = this.books.get(order.optionId);
    if (!state) throw new Error(`option ${order.optionId} is not in this market`);
    const short = this.missingCollateral(order) ?? this.unplaceable(state, order);
    if (short) return refused(short);
    const ladder = toLadder(order.side, order.action, order.priceCents);
    const taker = takerOf(order);
    const match = matchOrder(state.book, this.market.house?.quote(order.optionId) ?? null, taker);
    if (order.kind === 'market' && match.filledQuantity === 0) {
      // Nothing happened: the own orders it met go back where they were.
      for (const own of match.selfTradeCancels) state.book.restore(own);
      return refused({ code: 'NO_LIQUIDITY' });
    }
    if (match.fills.some((fill) => fill.maker.kind === 'amm')) this.market.house?.moved();
    const restingQuantity = rests(order.kind, order.timeInForce) ? match.remaining : 0;
    const execution = executeMatch(order.optionId, taker, match, {
      feeBps: this.market.feeBps,
      restingQuantity,
    });
    const met = match.selfTradeCancels.map((own) => state.orders.get(own.id) as OrderState);
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
      this.changePosition(userId, order.optionId, side, change);
    const trades = this.recordFills(order, match, execution.trades, ladder.bookSide);
    const makers = execution.makerUpdates.map((update) => this.fillMaker(state, update));
    const placed = this.placedOrder(order, ladder, match, {
      reservedCents: execution.takerRestingReserveCents,
      restingQuantity,
      replacesOrderId,
    });
    this.out.orders.set(placed.id, placed);
    this.out.newOrderIds.add(placed.id);
    if (restingQuantity > 0) {
      state.book.add(restingOf(placed));
      state.orders.set(placed.id, placed);
      this.touch(order.optionId, ladder.bookSide, ladder.bookPrice);
    }
    this.addTotals(order.optionId, execution);
    return { type: 'placed', order: placed, trades, makers, selfTradeCancelled };
  }

  /** Why an order that can pay cannot be placed now: post-only that would take, fill-or-kill that cannot fill. */
  private unplaceable(state: BookState, order: NewOrder): Refusal | null {
    const house = this.market.house?.quote(order.optionId) ?? null;
    if (order.postOnly && crossesOnArrival(state.book, house, takerOf(order)))
      return { code: 'POST_ONLY_WOULD_TAKE' };
    if (order.timeInForce !== 'FOK') return null;
    const fillable = fillableQuantity(state.book, house, takerOf(order));
    return fillable < order.quantity ? { code: 'FOK_NOT_FILLED', fillableQuantity: fillable } : null;
  }

  private placedOrder(
    order: NewOrder,
    ladder: ReturnType<typeof toLadder>,
    match: MatchResult,
    rest: { reservedCents: number; restingQuantity: number; replacesOrderId: number | null },
  ): OrderState {
    const { reservedCents, restingQuantity } = rest;
    const status = takerStatus(match, restingQuantity);
    return {
      id: order.id,
      optionId: order.optionId,
      userId: order.userId,
      kind: order.kind,
      side: order.side,
      action: order.action,
      priceCents: order.priceCents,
      ...ladder,
      quantity: order.quantity,
      filledQuantity: match.filledQuantity,
      reservedCents,
      status,
      cancelReason: status === 'cancelled' ? 'unfilled_remainder' : null,
      clientOrderId: order.clientOrderId,
      timeInForce: order.timeInForce,
      postOnly: order.postOnly,
      expiresAt: order.timeInForce === 'GTD' ? order.expiresAt : null,
      placedBy: order.placedBy,
      replacesOrderId: rest.replacesOrderId,
      createdAt: this.market.now,
    };
  }

  private amend(amend: Amend): Verdict {
    if (this.closed !== null) return refused({ code: 'MARKET_CLOSED', state: this.closed });
    const state = this.books.get(amend.optionId);
    const order = state?.orders.get(amend.orderId);
    if (!state || !order || order.userId !== amend.userId) return refused({ code: 'ORDER_NOT_OPEN' });
    const left = order.quantity - order.filledQuantity;
    const priceCents = amend.priceCents ?? order.priceCents;
    const remaining = amend.remainingQuantity ?? left;
    if (priceCents === order.priceCents && remaining === left)
      return { type: 'amended', previous: order, order, replacement: null };
    if (priceCents === order.priceCents && remaining < left) return this.shrink(state, order, remaining);
    const replacement: NewOrder = {
      ...amend.replacement,
      optionId: order.optionId,
      userId: order.userId,
      kind: order.kind,
      side: order.side,
      action: order.action,
      quantity: remaining,
      priceCents,
      timeInForce: order.timeInForce,
      postOnly: order.postOnly,
      expiresAt: order.expiresAt,
    };
    // Checked before the order is touched, with what cancelling it would free counted in.
    const short = this.missingCollateral(replacement, order) ?? this.unplaceable(state, replacement);
    if (short) return refused(short);
    const previous = this.endOrder(order, 'replaced');
    const placed = this.place(replacement, order.id) as PlacedVerdict;
    return { type: 'amended', previous, order: placed.order, replacement: placed };
  }

  /** Fewer shares left at the same price: the order keeps its place in its level, and gives back what it no longer needs. */
  private shrink(state: BookState, order: OrderState, remaining: number): Verdict {
    const cut = order.quantity - order.filledQuantity - remaining;
    state.book.setRemaining(order.id, remaining);
    const reservedCents = order.action === 'BUY' ? order.priceCents * remaining : 0;
    const after: OrderState = { ...order, quantity: order.quantity - cut, reservedCents };
    state.orders.set(after.id, after);
    this.out.orders.set(after.id, after);
    this.touch(order.optionId, order.bookSide, order.bookPrice);
    if (order.action === 'SELL')
      this.changePosition(order.userId, order.optionId, order.side, { ...NO_CHANGE, newlyReserved: -cut });
    this.post({
      kind: 'order_amend',
      memo: `order ${order.id} amended: ${cut} fewer shares`,
      userId: order.userId,
      ref: { type: 'order', id: order.id },
      postings: releasePostings({ ...order, reservedCents: order.reservedCents - reservedCents }),
    });
    return { type: 'amended', previous: order, order: after, replacement: null };
  }

  /** Why the taker cannot pay for the order (cash for a BUY with its fee, free shares for a SELL), if it cannot. */
  /** `freed`: a resting order the new one replaces, whose reserved cash or shares count as available. */
  private missingCollateral(order: NewOrder, freed?: OrderState): Refusal | null {
    if (order.action === 'BUY') {
      const notional = order.priceCents * order.quantity;
      const neededCents = notional + feeCents(notional, this.market.feeBps);
      return this.missingCash(order.userId, neededCents, freed?.reservedCents ?? 0);
    }
    const freedShares = freed ? freed.quantity - freed.filledQuantity : 0;
    return this.missingShares(order.userId, order.optionId, order.side, order.quantity, freedShares);
  }

  private missingCash(userId: number, neededCents: number, freedCents = 0): Refusal | null {
    const availableCents = (this.cash.get(userId) ?? 0) + freedCents;
    return availableCents < neededCents ? { code: 'INSUFFICIENT_FUNDS', neededCents, availableCents } : null;
  }

  private missingShares(
    userId: number,
    optionId: number,
    side: Side,
    needed: number,
    freed = 0,
  ): Refusal | null {
    const held = this.positions.get(positionKey(userId, optionId, side));
    if (!held) throw new Error(`the holdings of ${userId} in option ${optionId} were not given`);
    const available = held.quantity - held.reservedQuantity + freed;
    return available < needed ? { code: 'INSUFFICIENT_SHARES', needed, available } : null;
  }

  /** A conversion between the options of an exclusive event, against its conversion pool. */
  private convert(id: number, request: ConversionRequest): Verdict {
    const exclusive = this.market.exclusive;
    if (!exclusive || this.pool === null)
      return refused({
        code: 'INVALID_CONVERSION',
        reason: 'only the options of an exclusive event convert',
      });
    if (this.market.conversionsClosed !== null)
      return refused({ code: 'MARKET_CLOSED', state: this.market.conversionsClosed });
    const invalid = invalidConversion(exclusive.optionIds, request);
    if (invalid) return refused({ code: 'INVALID_CONVERSION', reason: invalid });
    const plan = planConversion(
      exclusive.eventId,
      exclusive.optionIds,
      request,
      this.pool,
      this.referencePrices(),
    );
    const needs = conversionNeeds(plan);
    const short =
      this.missingCash(request.userId, needs.cashCents) ??
      needs.shares.reduce<Refusal | null>(
        (found, need) => found ?? this.missingShares(request.userId, need.optionId, need.side, need.quantity),
        null,
      );
    if (short) return refused(short);
    this.post({
      kind: 'conversion',
      memo: `${request.kind} ${request.quantity} of event ${exclusive.eventId}`,
      userId: request.userId,
      ref: { type: 'conversion', id },
      postings: plan.postings,
    });
    for (const { optionId, side, change } of plan.positionChanges)
      this.changePosition(request.userId, optionId, side, change);
    for (const [optionId, { minted, merged }] of plan.pairs) {
      const totals = this.totals.get(optionId) as OptionTotals;
      totals.pairsMinted += minted;
      totals.pairsMerged += merged;
    }
    this.pool = plan.poolAfter;
    const { kind, userId, quantity } = request;
    const optionIds = kind === 'convert' ? [...request.optionIds] : [];
    return {
      type: 'converted',
      conversion: { id, userId, kind, quantity, optionIds, cashCents: plan.cashCents, legs: plan.legs },
    };
  }

  /**
   * The prices a conversion's legs are booked at, in cents adding up to 100: the house maker's chances, else the
   * options' last traded prices, else even odds.
   */
  private referencePrices(): Map<number, number> {
    const exclusive = this.market.exclusive as ExclusiveState;
    const chances = this.market.house?.chances();
    const weights = exclusive.optionIds.map(
      (id) =>
        chances?.get(id) ?? exclusive.lastYesPrices.get(id) ?? PAYOUT_CENTS / exclusive.optionIds.length,
    );
    const prices = apportion(weights, PAYOUT_CENTS);
    return new Map(exclusive.optionIds.map((id, index) => [id, prices[index] as number]));
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
  private fillMaker(
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
    if (after.status === 'filled') state.orders.delete(after.id);
    else state.orders.set(after.id, after);
    this.out.orders.set(after.id, after);
    return after;
  }

  /**
   * Ends a resting order: it leaves the book and gives back what it held (reserved cash to cash, reserved shares
   * to its holder). A self-trade cancel's release goes into the entry of the order that caused it; any other end
   * has an entry of its own.
   */
  private endOrder(order: OrderState, reason: EndReason, withinTaker = false): OrderState {
    const state = this.books.get(order.optionId) as BookState;
    state.book.remove(order.id);
    state.orders.delete(order.id);
    this.touch(order.optionId, order.bookSide, order.bookPrice);
    const left = order.quantity - order.filledQuantity;
    if (order.action === 'SELL')
      this.changePosition(order.userId, order.optionId, order.side, { ...NO_CHANGE, newlyReserved: -left });
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

  private touch(optionId: number, side: 'bid' | 'ask', priceCents: number): void {
    this.touched.get(optionId)?.add(levelKey(side, priceCents));
  }

  private changePosition(userId: number, optionId: number, side: Side, change: PositionChange): void {
    const key = positionKey(userId, optionId, side);
    const entry = this.out.positions.get(key) ?? { userId, optionId, side, changes: [] };
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

  private addTotals(optionId: number, execution: ReturnType<typeof executeMatch>): void {
    const totals = this.totals.get(optionId) as OptionTotals;
    totals.pairsMinted += execution.pairsMinted;
    totals.pairsMerged += execution.pairsMerged;
    totals.volumeShares += execution.volumeShares;
    totals.volumeCents += execution.takerNotionalCents;
    totals.houseCashCents += execution.houseCashCents;
    if (execution.lastYesPrice !== null) totals.lastYesPrice = execution.lastYesPrice;
  }
}

/** Why a conversion request cannot be carried out on these options, or null when it can. */
function invalidConversion(optionIds: number[], request: ConversionRequest): string | null {
  if (request.kind !== 'convert') return null;
  const given = new Set(request.optionIds);
  if (given.size === 0) return 'a convert names at least one option whose NO shares it gives';
  if (given.size !== request.optionIds.length) return 'an option is named twice';
  const unknown = request.optionIds.find((id) => !optionIds.includes(id));
  return unknown === undefined ? null : `option ${unknown} is not in this event`;
}

function takerOf(order: NewOrder) {
  return {
    id: order.id,
    orderId: order.id,
    userId: order.userId,
    side: order.side,
    action: order.action,
    limitPrice: order.priceCents,
    quantity: order.quantity,
  };
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

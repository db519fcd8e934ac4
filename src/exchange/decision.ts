import {
  type ConversionRequest,
  conversionNeeds,
  conversionPositionChanges,
  planConversion,
} from './conversions.js';
import { DecisionRecord, releasePostings } from './decision-record.js';
import type {
  Amend,
  BookState,
  Decision,
  ExclusiveState,
  Holdings,
  Instruction,
  MarketState,
  NewOrder,
  OptionTotals,
  PlacedVerdict,
  Refusal,
  Verdict,
} from './decision-types.js';
import { executeMatch, positionKey } from './execution.js';
import { apportion } from './house.js';
import { type KeyAccount, type KeyExposure, keyLimitRefusal } from './key-limits.js';
import { crossesOnArrival, fillableQuantity, type MatchResult, matchOrder, takerStatus } from './matching.js';
import { feeCents, PAYOUT_CENTS, type Side } from './money.js';
import { toLadder } from './order-book.js';
import { type OrderState, restingOf, rests } from './orders.js';
import {
  applyPositionChange,
  EMPTY_POSITION,
  NO_CHANGE,
  type PositionChange,
  type PositionState,
} from './positions.js';

export type * from './decision-types.js';

/**
 * The one decision of the exchange: what a list of instructions (orders placed, cancelled, expired, a market closed,
 * shares converted) does to a market: one independent option, or every option of an exclusive event, whose one house
 * maker ties their books together. It is given the books, the house maker, and what the takers hold, and returns
 * everything the instructions change: orders in their final state, fills, trades, ledger entries, position changes,
 * each option's totals and house inventory, the ladder levels touched as they now stand, and a verdict per
 * instruction (placed, ended, converted, or refused with its reason). No I/O; the instructions are decided in the
 * order given, each as if it came alone.
 */

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

/** The rules of each instruction, on the record of what the decision did before it. */
class Decider extends DecisionRecord {
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

  private place(order: NewOrder, replacesOrderId: number | null = null): Verdict {
    if (this.closed !== null) return refused({ code: 'MARKET_CLOSED', state: this.closed });
    const state = this.books.get(order.optionId);
    if (!state) throw new Error(`option ${order.optionId} is not in this market`);
    const short =
      this.missingCollateral(order) ?? this.unplaceable(state, order) ?? this.overKeyLimit(state, order);
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
    this.countKeyUse(order, restingQuantity > 0);
    return { type: 'placed', order: placed, trades, makers, selfTradeCancelled };
  }

  /** Why the placing key's limits refuse the order (`replaced`: the resting order an amend frees first), if they do. */
  private overKeyLimit(state: BookState, order: NewOrder, replaced?: OrderState): Refusal | null {
    const account = order.placedBy === null ? undefined : this.keys.get(order.placedBy);
    if (!account) return null;
    const mayRest = rests(order.kind, order.timeInForce);
    const limited = { ...order, mayRest };
    return keyLimitRefusal(
      account,
      limited,
      this.keyExposure(state, order, account, replaced),
      this.market.feeBps,
    );
  }

  private keyExposure(
    state: BookState,
    order: NewOrder,
    account: KeyAccount,
    replaced?: OrderState,
  ): KeyExposure {
    const own = replaced !== undefined && replaced.placedBy === order.placedBy;
    const freed = own
      ? { openOrders: 1, shares: replaced.quantity - replaced.filledQuantity, cents: replaced.reservedCents }
      : { openOrders: 0, shares: 0, cents: 0 };
    if (account.limits.maxPositionShares === null || order.action !== 'BUY') return { heldShares: 0, freed };
    const held = this.positions.get(positionKey(order.userId, order.optionId, order.side));
    if (!held) throw new Error(`the position of ${order.userId} in option ${order.optionId} was not given`);
    let resting = 0;
    for (const other of state.orders.values())
      if (other.placedBy === order.placedBy && other.action === 'BUY' && other.side === order.side)
        resting += other.quantity - other.filledQuantity;
    return { heldShares: held.quantity + resting, freed };
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
    const short =
      this.missingCollateral(replacement, order) ??
      this.unplaceable(state, replacement) ??
      this.overKeyLimit(state, replacement, order);
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
    const availableCents = (this.funds.get(userId) ?? 0) + freedCents;
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
    const held = (optionId: number, side: Side) =>
      this.positions.get(positionKey(request.userId, optionId, side)) ?? EMPTY_POSITION;
    for (const { optionId, side, change } of conversionPositionChanges(plan, held))
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

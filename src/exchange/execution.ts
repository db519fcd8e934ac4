import type { Posting } from './ledger.js';
import type { Fill, MatchResult } from './matching.js';
import { type Action, feeCents, PAYOUT_CENTS, type Side, sidePrice } from './money.js';
import { NO_CHANGE, type PositionChange } from './positions.js';

export interface Taker {
  orderId: number;
  userId: number;
  side: Side;
  action: Action;
  limitPrice: number;
  quantity: number;
}

export interface TradeRecord {
  fillIndex: number;
  userId: number;
  orderId: number;
  side: Side;
  action: Action;
  quantity: number;
  priceCents: number;
  feeCents: number;
  liquidity: 'maker' | 'taker';
}

export interface MakerOrderUpdate {
  orderId: number;
  userId: number;
  filledQuantity: number;
  /** Cash released from the maker's reservation to pay for its fills (BUY orders). */
  reservedSpentCents: number;
}

export interface Execution {
  postings: Posting[];
  trades: TradeRecord[];
  positionChanges: Map<string, { userId: number; side: Side; change: PositionChange }>;
  makerUpdates: MakerOrderUpdate[];
  takerFeeCents: number;
  takerNotionalCents: number;
  /** Cash the taker keeps reserved for the part of a BUY limit order that rests. */
  takerRestingReserveCents: number;
  pairsMinted: number;
  pairsMerged: number;
  volumeShares: number;
  lastYesPrice: number | null;
  /** Cash the house maker received (negative: paid) for its fills. */
  houseCashCents: number;
}

/** A holder's side of an option, as the holdings and position changes of a decision name it. */
export function positionKey(userId: number, optionId: number, side: Side): string {
  return `${userId}:${optionId}:${side}`;
}

/**
 * Turns a match into money and share movements: the ledger postings (netted by the ledger into one entry),
 * each user's trades, position changes, maker order updates and the option's pair counts.
 *
 * Cash: a BUY pays its side's price per share (a taker from cash, a resting maker from its reservation, the house
 * from its `amm` account); a SELL receives it. A mint puts 100 per pair into escrow and a merge takes it out.
 * The taker pays the fee on its notional; for a BUY limit order that rests, `restingQuantity` shares' worth of
 * collateral moves from cash to reserved.
 */
export function executeMatch(
  optionId: number,
  taker: Taker,
  match: MatchResult,
  options: { feeBps: number; restingQuantity: number },
): Execution {
  const postings: Posting[] = [];
  const trades: TradeRecord[] = [];
  const positionChanges = new Map<string, { userId: number; side: Side; change: PositionChange }>();
  const makerUpdates = new Map<number, MakerOrderUpdate>();
  let pairsMinted = 0;
  let pairsMerged = 0;
  let takerNotionalCents = 0;
  let volumeShares = 0;
  let lastYesPrice: number | null = null;
  let houseCashCents = 0;

  const change = (userId: number, side: Side): PositionChange => {
    const key = positionKey(userId, optionId, side);
    let entry = positionChanges.get(key);
    if (!entry) {
      entry = { userId, side, change: { ...NO_CHANGE } };
      positionChanges.set(key, entry);
    }
    return entry.change;
  };

  match.fills.forEach((fill: Fill, fillIndex) => {
    const takerPrice = sidePrice(taker.side, fill.yesPrice);
    const makerPrice = sidePrice(fill.makerSide, fill.yesPrice);
    const takerCents = takerPrice * fill.quantity;
    const makerCents = makerPrice * fill.quantity;
    takerNotionalCents += takerCents;
    volumeShares += fill.quantity;
    lastYesPrice = fill.yesPrice;

    // Taker.
    if (taker.action === 'BUY') {
      postings.push({ account: { kind: 'cash', userId: taker.userId }, amount: -takerCents });
      const c = change(taker.userId, taker.side);
      c.boughtQuantity += fill.quantity;
      c.boughtCostCents += takerCents;
    } else {
      postings.push({ account: { kind: 'cash', userId: taker.userId }, amount: takerCents });
      const c = change(taker.userId, taker.side);
      c.soldQuantity += fill.quantity;
      c.soldProceedsCents += takerCents;
    }
    trades.push({
      fillIndex,
      userId: taker.userId,
      orderId: taker.orderId,
      side: taker.side,
      action: taker.action,
      quantity: fill.quantity,
      priceCents: takerPrice,
      feeCents: 0,
      liquidity: 'taker',
    });

    // Maker.
    if (fill.maker.kind === 'amm') {
      const amount = fill.makerAction === 'BUY' ? -makerCents : makerCents;
      postings.push({ account: { kind: 'amm' }, amount });
      houseCashCents += amount;
    } else {
      const order = fill.maker.order;
      const update = makerUpdates.get(order.id) ?? {
        orderId: order.id,
        userId: order.userId,
        filledQuantity: 0,
        reservedSpentCents: 0,
      };
      update.filledQuantity += fill.quantity;
      const c = change(order.userId, fill.makerSide);
      if (fill.makerAction === 'BUY') {
        postings.push({ account: { kind: 'reserved', userId: order.userId }, amount: -makerCents });
        update.reservedSpentCents += makerCents;
        c.boughtQuantity += fill.quantity;
        c.boughtCostCents += makerCents;
      } else {
        postings.push({ account: { kind: 'cash', userId: order.userId }, amount: makerCents });
        c.soldQuantity += fill.quantity;
        c.soldProceedsCents += makerCents;
        c.soldFromReserved += fill.quantity;
      }
      makerUpdates.set(order.id, update);
      trades.push({
        fillIndex,
        userId: order.userId,
        orderId: order.id,
        side: fill.makerSide,
        action: fill.makerAction,
        quantity: fill.quantity,
        priceCents: makerPrice,
        feeCents: 0,
        liquidity: 'maker',
      });
    }

    // Collateral of the pairs.
    if (fill.kind === 'mint') {
      postings.push({ account: { kind: 'escrow', optionId }, amount: PAYOUT_CENTS * fill.quantity });
      pairsMinted += fill.quantity;
    } else if (fill.kind === 'merge') {
      postings.push({ account: { kind: 'escrow', optionId }, amount: -PAYOUT_CENTS * fill.quantity });
      pairsMerged += fill.quantity;
    }
  });

  const takerFeeCents = feeCents(takerNotionalCents, options.feeBps);
  if (takerFeeCents > 0) {
    postings.push({ account: { kind: 'cash', userId: taker.userId }, amount: -takerFeeCents });
    postings.push({ account: { kind: 'fees' }, amount: takerFeeCents });
    allocateFee(trades, takerFeeCents);
    const c = change(taker.userId, taker.side);
    if (taker.action === 'BUY') c.boughtCostCents += takerFeeCents;
    else c.soldProceedsCents -= takerFeeCents;
  }

  let takerRestingReserveCents = 0;
  if (options.restingQuantity > 0) {
    if (taker.action === 'BUY') {
      takerRestingReserveCents = taker.limitPrice * options.restingQuantity;
      postings.push({ account: { kind: 'cash', userId: taker.userId }, amount: -takerRestingReserveCents });
      postings.push({
        account: { kind: 'reserved', userId: taker.userId },
        amount: takerRestingReserveCents,
      });
    } else {
      change(taker.userId, taker.side).newlyReserved += options.restingQuantity;
    }
  }

  return {
    postings,
    trades,
    positionChanges,
    makerUpdates: [...makerUpdates.values()],
    takerFeeCents,
    takerNotionalCents,
    takerRestingReserveCents,
    pairsMinted,
    pairsMerged,
    volumeShares,
    lastYesPrice,
    houseCashCents,
  };
}

/** Spreads the taker's fee over its trades in proportion to their notional; the last trade takes the rounding. */
function allocateFee(trades: TradeRecord[], fee: number): void {
  const takerTrades = trades.filter((trade) => trade.liquidity === 'taker');
  const notional = takerTrades.reduce((sum, trade) => sum + trade.priceCents * trade.quantity, 0);
  let left = fee;
  takerTrades.forEach((trade, index) => {
    const share =
      index === takerTrades.length - 1
        ? left
        : Math.floor((fee * trade.priceCents * trade.quantity) / notional);
    trade.feeCents = share;
    left -= share;
  });
}

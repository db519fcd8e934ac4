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
  const execution = new ExecutionBuilder(optionId, taker);
  match.fills.forEach((fill, fillIndex) => {
    execution.takerSide(fill, fillIndex);
    execution.makerSide(fill, fillIndex);
    execution.pairs(fill);
  });
  execution.fee(options.feeBps);
  execution.resting(options.restingQuantity);
  return execution.result();
}

/** The movements of one match, gathered fill by fill. */
class ExecutionBuilder {
  private readonly postings: Posting[] = [];
  private readonly trades: TradeRecord[] = [];
  private readonly positionChanges: Execution['positionChanges'] = new Map();
  private readonly makerUpdates = new Map<number, MakerOrderUpdate>();
  private pairsMinted = 0;
  private pairsMerged = 0;
  private takerNotionalCents = 0;
  private volumeShares = 0;
  private lastYesPrice: number | null = null;
  private houseCashCents = 0;
  private takerFeeCents = 0;
  private takerRestingReserveCents = 0;

  constructor(
    private readonly optionId: number,
    private readonly taker: Taker,
  ) {}

  /** The taker pays (BUY) or receives (SELL) its side's price, from or into its transit account. */
  takerSide(fill: Fill, fillIndex: number): void {
    const taker = this.taker;
    const priceCents = sidePrice(taker.side, fill.yesPrice);
    const cents = priceCents * fill.quantity;
    this.takerNotionalCents += cents;
    this.volumeShares += fill.quantity;
    this.lastYesPrice = fill.yesPrice;
    const c = this.change(taker.userId, taker.side);
    if (taker.action === 'BUY') {
      this.post({ kind: 'transit', userId: taker.userId }, -cents);
      c.boughtQuantity += fill.quantity;
      c.boughtCostCents += cents;
    } else {
      this.post({ kind: 'transit', userId: taker.userId }, cents);
      c.soldQuantity += fill.quantity;
      c.soldProceedsCents += cents;
    }
    const { orderId, userId, side, action } = taker;
    const quantity = fill.quantity;
    this.trades.push({
      fillIndex,
      userId,
      orderId,
      side,
      action,
      quantity,
      priceCents,
      feeCents: 0,
      liquidity: 'taker',
    });
  }

  /** The house pays or receives through `amm`; a resting order's BUY from its reservation, its SELL into transit. */
  makerSide(fill: Fill, fillIndex: number): void {
    const priceCents = sidePrice(fill.makerSide, fill.yesPrice);
    const cents = priceCents * fill.quantity;
    if (fill.maker.kind === 'amm') {
      const amount = fill.makerAction === 'BUY' ? -cents : cents;
      this.post({ kind: 'amm' }, amount);
      this.houseCashCents += amount;
      return;
    }
    const order = fill.maker.order;
    const update = this.makerUpdate(order.id, order.userId);
    update.filledQuantity += fill.quantity;
    const c = this.change(order.userId, fill.makerSide);
    if (fill.makerAction === 'BUY') {
      this.post({ kind: 'reserved', userId: order.userId }, -cents);
      update.reservedSpentCents += cents;
      c.boughtQuantity += fill.quantity;
      c.boughtCostCents += cents;
    } else {
      this.post({ kind: 'transit', userId: order.userId }, cents);
      c.soldQuantity += fill.quantity;
      c.soldProceedsCents += cents;
      c.soldFromReserved += fill.quantity;
    }
    this.trades.push({
      fillIndex,
      userId: order.userId,
      orderId: order.id,
      side: fill.makerSide,
      action: fill.makerAction,
      quantity: fill.quantity,
      priceCents,
      feeCents: 0,
      liquidity: 'maker',
    });
  }

  /** A mint puts 100 a pair into the option's escrow, a merge takes it out. */
  pairs(fill: Fill): void {
    if (fill.kind === 'mint') {
      this.post({ kind: 'escrow', optionId: this.optionId }, PAYOUT_CENTS * fill.quantity);
      this.pairsMinted += fill.quantity;
    } else if (fill.kind === 'merge') {
      this.post({ kind: 'escrow', optionId: this.optionId }, -PAYOUT_CENTS * fill.quantity);
      this.pairsMerged += fill.quantity;
    }
  }

  /** The taker's fee on its notional, spread over its trades, in its cost (BUY) or off its proceeds (SELL). */
  fee(feeBps: number): void {
    const taker = this.taker;
    this.takerFeeCents = feeCents(this.takerNotionalCents, feeBps);
    if (this.takerFeeCents === 0) return;
    this.post({ kind: 'transit', userId: taker.userId }, -this.takerFeeCents);
    this.post({ kind: 'fees' }, this.takerFeeCents);
    allocateFee(this.trades, this.takerFeeCents);
    const c = this.change(taker.userId, taker.side);
    if (taker.action === 'BUY') c.boughtCostCents += this.takerFeeCents;
    else c.soldProceedsCents -= this.takerFeeCents;
  }

  /** What rests of the taker: a BUY's price moves from transit to reserved, a SELL's shares are reserved. */
  resting(quantity: number): void {
    if (quantity <= 0) return;
    const taker = this.taker;
    if (taker.action === 'SELL') {
      this.change(taker.userId, taker.side).newlyReserved += quantity;
      return;
    }
    this.takerRestingReserveCents = taker.limitPrice * quantity;
    this.post({ kind: 'transit', userId: taker.userId }, -this.takerRestingReserveCents);
    this.post({ kind: 'reserved', userId: taker.userId }, this.takerRestingReserveCents);
  }

  result(): Execution {
    return {
      postings: this.postings,
      trades: this.trades,
      positionChanges: this.positionChanges,
      makerUpdates: [...this.makerUpdates.values()],
      takerFeeCents: this.takerFeeCents,
      takerNotionalCents: this.takerNotionalCents,
      takerRestingReserveCents: this.takerRestingReserveCents,
      pairsMinted: this.pairsMinted,
      pairsMerged: this.pairsMerged,
      volumeShares: this.volumeShares,
      lastYesPrice: this.lastYesPrice,
      houseCashCents: this.houseCashCents,
    };
  }

  private post(account: Posting['account'], amount: number): void {
    this.postings.push({ account, amount });
  }

  private change(userId: number, side: Side): PositionChange {
    const key = positionKey(userId, this.optionId, side);
    let entry = this.positionChanges.get(key);
    if (!entry) {
      entry = { userId, side, change: { ...NO_CHANGE } };
      this.positionChanges.set(key, entry);
    }
    return entry.change;
  }

  private makerUpdate(orderId: number, userId: number): MakerOrderUpdate {
    let update = this.makerUpdates.get(orderId);
    if (!update) {
      update = { orderId, userId, filledQuantity: 0, reservedSpentCents: 0 };
      this.makerUpdates.set(orderId, update);
    }
    return update;
  }
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

import { orderWorstCase } from './collateral.js';
import { type BookState, decide, type Holdings, type MarketState, type Refusal } from './decision.js';
import { positionKey } from './execution.js';
import { type Action, type Side, sidePrice } from './money.js';
import { EMPTY_POSITION } from './positions.js';

/**
 * What a market order of a given size would get now: its collateral set aside as the collateral step would
 * (collateral.ts), then decided by the exchange's one decision (`decide`), so the fills, their prices, the fee and
 * any refusal are exactly those the order would meet against this book and house maker.
 * Nothing is placed: the caller hands over state it owns for this one question (a book and a market read for it),
 * which the decision advances and the caller then drops.
 */

/** Who asks: a trader (their own resting orders, cash and shares count), or nobody in particular. */
export type Quoter =
  | {
      kind: 'trader';
      userId: number;
      /** The cash the collateral step would take the order's worst case from (cash and what markets gave back). */
      availableCents: number;
      positions: Holdings['positions'];
    }
  /** Anyone: no resting order is theirs, and they can pay for and deliver whatever they ask about. */
  | { kind: 'anyone' };

export interface QuoteRequest {
  optionId: number;
  side: Side;
  action: Action;
  quantity: number;
  /** The worst price accepted, in the order's own side (as a market trade's `priceCents`). */
  priceCents: number;
}

/** One price the order would reach, in the order's own side, with how much it would take there. */
export interface QuoteLevel {
  priceCents: number;
  quantity: number;
  /** Of that quantity, what the house market maker would sell or buy. */
  houseQuantity: number;
}

export interface Quote {
  filledQuantity: number;
  /** Best first, in the order they would be taken. */
  levels: QuoteLevel[];
  /** Σ price × quantity of the fills, in the order's own side. */
  notionalCents: number;
  feeCents: number;
  /** The trader's own resting orders the order would meet: cancelled, not filled (self-trade prevention). */
  selfTradeCancels: number;
  /** Why the order would be refused now (nothing placed, nothing charged), or null. */
  refusal: Refusal | null;
}

/** No real account has this id (ids start at 1): an anonymous quoter's resting orders are none. */
const ANYONE = 0;
const NOTHING = { filledQuantity: 0, levels: [], notionalCents: 0, feeCents: 0, selfTradeCancels: 0 };

/** Quotes a market order (immediate-or-cancel at `priceCents`) against `book` and `market.house`. */
export function quoteMarketOrder(
  book: BookState,
  market: MarketState,
  quoter: Quoter,
  request: QuoteRequest,
): Quote {
  const userId = quoter.kind === 'trader' ? quoter.userId : ANYONE;
  // The collateral step comes first: an order whose worst case the cash cannot cover never reaches its market.
  const worstCase = orderWorstCase(request, market.feeBps);
  if (quoter.kind === 'trader' && worstCase > quoter.availableCents) {
    const refusal: Refusal = {
      code: 'INSUFFICIENT_FUNDS',
      neededCents: worstCase,
      availableCents: quoter.availableCents,
    };
    return { ...NOTHING, refusal };
  }
  const holdings: Holdings =
    quoter.kind === 'trader'
      ? { funds: new Map([[userId, worstCase]]), positions: quoter.positions }
      : anyoneHolding(request, worstCase);
  const decision = decide(new Map([[request.optionId, book]]), market, holdings, [
    {
      type: 'place',
      order: {
        // Newer than every resting order, as a new order is.
        id: Number.MAX_SAFE_INTEGER,
        optionId: request.optionId,
        userId,
        kind: 'market',
        side: request.side,
        action: request.action,
        quantity: request.quantity,
        priceCents: request.priceCents,
        timeInForce: 'IOC',
        postOnly: false,
        expiresAt: null,
        clientOrderId: null,
        placedBy: null,
      },
    },
  ]);
  const [verdict] = decision.verdicts;
  if (verdict?.type === 'refused') return { ...NOTHING, refusal: verdict.refusal };
  if (verdict?.type !== 'placed') throw new Error('a market order is either placed or refused');
  const taken = decision.trades.filter((trade) => trade.liquidity === 'taker');
  return {
    filledQuantity: verdict.order.filledQuantity,
    levels: levelsOf(decision.fills, request.side),
    notionalCents: taken.reduce((sum, trade) => sum + trade.priceCents * trade.quantity, 0),
    feeCents: taken.reduce((sum, trade) => sum + trade.feeCents, 0),
    selfTradeCancels: verdict.selfTradeCancelled.length,
    refusal: null,
  };
}

/** What an anonymous quoter holds: the cash its order could spend at worst, and the shares a SELL would deliver. */
function anyoneHolding(request: QuoteRequest, worstCase: number): Holdings {
  const position = { ...EMPTY_POSITION, quantity: request.quantity };
  return {
    funds: new Map([[ANYONE, worstCase]]),
    positions: new Map([[positionKey(ANYONE, request.optionId, request.side), position]]),
  };
}

/** The fills gathered per price, in the order they were made (best price first). */
function levelsOf(
  fills: { yesPrice: number; quantity: number; makerOrderId: number | null }[],
  side: Side,
): QuoteLevel[] {
  const levels: QuoteLevel[] = [];
  for (const fill of fills) {
    const priceCents = sidePrice(side, fill.yesPrice);
    let level = levels[levels.length - 1];
    if (!level || level.priceCents !== priceCents) {
      level = { priceCents, quantity: 0, houseQuantity: 0 };
      levels.push(level);
    }
    level.quantity += fill.quantity;
    if (fill.makerOrderId === null) level.houseQuantity += fill.quantity;
  }
  return levels;
}

import { feeCents, type Side } from './money.js';

/**
 * An API key's risk limits, held by the one decision to every order the key places or amends (a batch's orders
 * each in turn). Each is optional (null: none):
 *
 *   maxOrderCents      an order's value, its limit price times its quantity
 *   maxOpenOrders      the key's orders resting at once, in every market
 *   maxPositionShares  the account's shares of one side (YES or NO) of one option, counted with every share the
 *                      key's resting purchases of that side could still buy there
 *   maxDailyLossCents  the most the key's trades of the day (UTC) could lose: what its purchases paid (fees
 *                      included) less what its sales brought, with what its resting purchases hold counted as paid
 *
 * Each counts at worst, so that no order of fills and cancels afterwards can take the key past it: a purchase is
 * counted as if it filled whole at its limit price and paid the taker's fee, and a resting purchase until it ends.
 * No I/O: the caller reads what a key uses now (`KeyUsage`) under the key's lock and the market's.
 */
export interface KeyLimits {
  maxOrderCents: number | null;
  maxOpenOrders: number | null;
  maxPositionShares: number | null;
  maxDailyLossCents: number | null;
}

/** What a key's orders use of its limits that span markets, as read before the decision. */
export interface KeyUsage {
  openOrders: number;
  dailyLossCents: number;
}

/** A key's limits and usage, as the decision carries them from order to order. */
export interface KeyAccount {
  limits: KeyLimits;
  usage: KeyUsage;
}

export type KeyLimitRefusal =
  | { code: 'KEY_ORDER_TOO_LARGE'; limitCents: number; orderCents: number }
  | { code: 'KEY_OPEN_ORDERS_LIMIT'; limit: number; open: number }
  | { code: 'KEY_POSITION_LIMIT'; limitShares: number; wouldHold: number }
  | { code: 'KEY_DAILY_LOSS_LIMIT'; limitCents: number; wouldRiskCents: number };

export const NO_KEY_LIMITS: KeyLimits = {
  maxOrderCents: null,
  maxOpenOrders: null,
  maxPositionShares: null,
  maxDailyLossCents: null,
};

/** Whether any limit needs what the key uses across markets (read under the key's lock). */
export function spansMarkets(limits: KeyLimits): boolean {
  return limits.maxOpenOrders !== null || limits.maxDailyLossCents !== null;
}

/** An order as the limits see it. */
export interface LimitedOrder {
  side: Side;
  action: 'BUY' | 'SELL';
  priceCents: number;
  quantity: number;
  /** Whether any of it may rest on the book. */
  mayRest: boolean;
}

/**
 * What the key holds already, for this order: the account's shares of its side and option with every share the
 * key's resting purchases there could still buy, and what a replaced order of the key frees (an amend).
 */
export interface KeyExposure {
  heldShares: number;
  freed: { openOrders: number; shares: number; cents: number };
}

/** Why a key may not place this order, or null when its limits let it. */
export function keyLimitRefusal(
  account: KeyAccount,
  order: LimitedOrder,
  exposure: KeyExposure,
  feeBps: number,
): KeyLimitRefusal | null {
  const { limits, usage } = account;
  const orderCents = order.priceCents * order.quantity;
  if (limits.maxOrderCents !== null && orderCents > limits.maxOrderCents)
    return { code: 'KEY_ORDER_TOO_LARGE', limitCents: limits.maxOrderCents, orderCents };
  const open = usage.openOrders - exposure.freed.openOrders;
  if (limits.maxOpenOrders !== null && order.mayRest && open + 1 > limits.maxOpenOrders)
    return { code: 'KEY_OPEN_ORDERS_LIMIT', limit: limits.maxOpenOrders, open };
  if (order.action !== 'BUY') return null;
  const wouldHold = exposure.heldShares - exposure.freed.shares + order.quantity;
  if (limits.maxPositionShares !== null && wouldHold > limits.maxPositionShares)
    return { code: 'KEY_POSITION_LIMIT', limitShares: limits.maxPositionShares, wouldHold };
  const wouldRiskCents = usage.dailyLossCents - exposure.freed.cents + purchaseWorstCase(order, feeBps);
  if (limits.maxDailyLossCents !== null && wouldRiskCents > limits.maxDailyLossCents)
    return { code: 'KEY_DAILY_LOSS_LIMIT', limitCents: limits.maxDailyLossCents, wouldRiskCents };
  return null;
}

/** What a purchase could cost at worst: filled whole at its limit price, with the taker's fee on all of it. */
export function purchaseWorstCase(order: { priceCents: number; quantity: number }, feeBps: number): number {
  const notional = order.priceCents * order.quantity;
  return notional + feeCents(notional, feeBps);
}

import type { Action, Side } from './money.js';
import type { BookSide, RestingOrder } from './order-book.js';

export type OrderKind = 'market' | 'limit';
/**
 * How long an order may rest. GTC: until filled or cancelled; GTD: until its `expiresAt`; IOC: never (what does not
 * fill at once is cancelled); FOK: never, and only whole (it fills completely at once, or is refused untouched). A
 * market order is IOC.
 */
export type TimeInForce = 'GTC' | 'GTD' | 'IOC' | 'FOK';
export type OrderStatus = 'open' | 'partially_filled' | 'filled' | 'cancelled' | 'expired';

/** Why an order stopped before it filled. */
/** Why an order ended without filling: every reason an order's `cancelReason` can give. */
export const END_REASONS = [
  'cancelled_by_user',
  'self_trade_prevented',
  'unfilled_remainder',
  'market_closed',
  'expired',
  /** Amended by a price change or an increase: a new order took its place. */
  'replaced',
  /** Its credential's dead man's switch went off: no heartbeat arrived in time. */
  'heartbeat_lapsed',
] as const;

export type EndReason = (typeof END_REASONS)[number];

/** Whether an order's unfilled rest may rest on the book. */
export function rests(kind: OrderKind, timeInForce: TimeInForce): boolean {
  return kind === 'limit' && (timeInForce === 'GTC' || timeInForce === 'GTD');
}

/** An order as the exchange decides on it. */
export interface OrderState {
  id: number;
  optionId: number;
  userId: number;
  kind: OrderKind;
  side: Side;
  action: Action;
  /** The limit in the order's own side (the most a BUY pays, the least a SELL accepts). */
  priceCents: number;
  bookSide: BookSide;
  bookPrice: number;
  quantity: number;
  filledQuantity: number;
  /** Cash held for the unfilled part of a resting BUY: its price times what is left. */
  reservedCents: number;
  status: OrderStatus;
  cancelReason: string | null;
  clientOrderId: string | null;
  timeInForce: TimeInForce;
  /** Only ever rests: refused whole rather than take liquidity. */
  postOnly: boolean;
  expiresAt: Date | null;
  /** The credential that placed it (`apiKey:<id>`, `session:<id>`), whose dead man's switch covers it. */
  placedBy: string | null;
  /** The order an amend replaced with this one. */
  replacesOrderId: number | null;
  createdAt: Date;
}

export function isResting(order: { status: OrderStatus }): boolean {
  return order.status === 'open' || order.status === 'partially_filled';
}

/** What the order book keeps of a resting order. */
export function restingOf(order: OrderState): RestingOrder {
  return {
    id: order.id,
    userId: order.userId,
    side: order.side,
    action: order.action,
    bookSide: order.bookSide,
    bookPrice: order.bookPrice,
    remaining: order.quantity - order.filledQuantity,
  };
}

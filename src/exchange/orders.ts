import type { Action, Side } from './money.js';
import type { BookSide, RestingOrder } from './order-book.js';

export type OrderKind = 'market' | 'limit';
export type OrderStatus = 'open' | 'partially_filled' | 'filled' | 'cancelled' | 'expired';

/** Why an order stopped before it filled. */
export type EndReason =
  | 'cancelled_by_user'
  | 'self_trade_prevented'
  | 'unfilled_remainder'
  | 'market_closed'
  | 'expired';

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
  expiresAt: Date | null;
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

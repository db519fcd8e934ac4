import { apiClient, idempotencyKey, typed } from '../../api/client';
import type { LimitOrderRequest, OrderResult, TradeRequest } from '../../api/types';
import { formatNumber, formatPrice } from '../../lib/format';
import { type OrderDraft, restsInBook, sideName, type TicketInputs } from './order-draft';

/** Orders that could cost or bring more than this (in cents) are shown for review before they are sent. */
export const REVIEW_ABOVE_CENTS = 10_000;

export type OrderRequest =
  | { kind: 'market'; body: TradeRequest }
  | { kind: 'limit'; body: LimitOrderRequest };

/**
 * The request for the order on the ticket: a trade at the worst price accepted, or a limit order with its time in
 * force, its expiry (GTD) and post-only (only for an order that rests).
 */
export function orderRequest(
  order: OrderDraft,
  side: TradeRequest['side'],
  inputs: TicketInputs,
): OrderRequest {
  const { action, kind, timeInForce } = inputs;
  const body = { optionId: order.option.id, side, action, quantity: order.qty };
  if (kind === 'market') return { kind, body: { ...body, priceCents: order.cents } };
  return {
    kind,
    body: {
      ...body,
      limitPriceCents: order.cents,
      timeInForce,
      ...(timeInForce === 'GTD' ? { expiresInHours: Number(inputs.expiry) } : {}),
      ...(inputs.postOnly && restsInBook(timeInForce) ? { postOnly: true } : {}),
    },
  };
}

/** Places a market order (a trade) or a limit order, under a fresh Idempotency-Key so a retry never doubles it. */
export function placeOrder({ kind, body }: OrderRequest): Promise<OrderResult> {
  const params = { header: { 'idempotency-key': idempotencyKey() } };
  return kind === 'market'
    ? typed(apiClient.POST('/api/trades', { params, body }))
    : typed(apiClient.POST('/api/limit-orders', { params, body }));
}

/** What a placed order did, in words: what filled at what average, and what was cancelled or waits. */
export function describeResult(order: OrderResult): string {
  const side = sideName(order.side);
  const verb = order.action === 'BUY' ? 'Bought' : 'Sold';
  const filled =
    order.filledQuantity > 0
      ? `${verb} ${formatNumber(order.filledQuantity)} ${side} at ${formatPrice(order.averagePriceCents)} on average.`
      : '';
  if (order.kind === 'market') {
    const rest =
      order.remainingQuantity > 0
        ? ` ${formatNumber(order.remainingQuantity)} could not be filled at your price and were cancelled.`
        : '';
    return `${filled}${rest}`.trim();
  }
  if (order.status === 'filled') return filled;
  return `${filled} Limit order open: ${formatNumber(order.remainingQuantity)} ${side} at ${formatPrice(order.priceCents)}.`.trim();
}

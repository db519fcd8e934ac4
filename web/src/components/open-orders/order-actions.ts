import { apiClient, idempotencyKey, typed } from '../../api/client';
import type { Order } from '../../api/types';
import { formatPrice } from '../../lib/format';

/** An order as a list shows it; the lists' rows carry their market's title. */
export type OrderRow = Order & { eventTitle: string };

/** The order in a few words, for the names of its buttons and fields: "buy 5 Yes Over 65% at 40¢". */
export function orderInWords(order: Order): string {
  return `${order.action === 'BUY' ? 'buy' : 'sell'} ${order.remainingQuantity} ${order.side === 'YES' ? 'Yes' : 'No'} ${order.optionLabel} at ${formatPrice(order.priceCents)}`;
}

export function cancelOrder(order: Order): Promise<Order> {
  return typed(apiClient.DELETE('/api/limit-orders/{id}', { params: { path: { id: order.id } } }));
}

/** What an amend asks for: a new price, a new number of shares left, or both. */
export interface AmendChange {
  priceCents: number;
  remainingQuantity: number;
}

/**
 * Amends the order in place through the API (fewer shares keep its place in the queue; a new price or more shares
 * replace it), under an Idempotency-Key so a retry never acts twice. Sends only what changed; answers the order as
 * it now stands, which may have a new id, and may have filled.
 */
export async function amendOrder(order: Order, change: AmendChange): Promise<Order> {
  const body = {
    ...(change.priceCents !== order.priceCents ? { limitPriceCents: change.priceCents } : {}),
    ...(change.remainingQuantity !== order.remainingQuantity
      ? { remainingQuantity: change.remainingQuantity }
      : {}),
  };
  const answer = await typed(
    apiClient.POST('/api/limit-orders/{id}/amend', {
      params: { path: { id: order.id }, header: { 'idempotency-key': idempotencyKey() } },
      body,
    }),
  );
  return answer.order;
}

/** Whether an order still waits in the book, and so belongs in a list of open orders. */
export function stillOpen(order: Order): boolean {
  return order.status === 'open' || order.status === 'partially_filled';
}

/** The list after an amend: the order replaced where it stood by what it became, or left out once no longer open. */
export function afterAmend<T extends Order>(list: T[], before: Order, after: T): T[] {
  return list.flatMap((item) => (item.id !== before.id ? [item] : stillOpen(after) ? [after] : []));
}

import type { OrderRow } from '../trading/repository.js';
import type { ConversionCommitted } from '../trading/types.js';
import type { MarketNames } from './repository.js';

/** Trading events in the trader's words, for the notification feed. */

export function cents(value: number): string {
  const rounded = Math.round(value * 10) / 10;
  return `${rounded}¢`;
}

export function marketName(market: MarketNames): string {
  return `${market.event_title} (${market.option_label})`;
}

/**
 * The price part of an order in a trader's words: a limit order's price; a market order's bound, or "at any
 * price" for one that takes whatever the book offers (a protective sell goes down to 1¢).
 */
function pricePhrase(order: OrderRow): string {
  if (order.kind !== 'market') return `at ${order.price_cents}¢`;
  if (order.action === 'SELL')
    return order.price_cents <= 1 ? 'at any price' : `at ${order.price_cents}¢ or more`;
  return order.price_cents >= 99 ? 'at any price' : `at up to ${order.price_cents}¢`;
}

/** "buy 10 YES of India vs Australia (India) at 55¢"; "sell 20 YES of … at any price" */
export function orderPhrase(order: OrderRow, market: MarketNames): string {
  return `${order.action.toLowerCase()} ${order.quantity} ${order.side} of ${marketName(market)} ${pricePhrase(order)}`;
}

export function isCopyOrder(order: OrderRow): boolean {
  return order.client_order_id?.startsWith(COPY_ORDER_PREFIX) ?? false;
}

/** Mirror orders carry this client order id prefix; they are never mirrored again. */
export const COPY_ORDER_PREFIX = 'copy-';

export function fillText(
  order: OrderRow,
  market: MarketNames,
  filled: number,
  averagePrice: number,
): { title: string; body: string } {
  const remaining = order.quantity - order.filled_quantity;
  const earlier = filled < order.filled_quantity;
  let after = '.';
  if (order.status === 'filled' && earlier) after = `; all ${order.quantity} are now filled.`;
  else if (order.status === 'partially_filled' || order.status === 'open')
    after = `${earlier ? ` (${order.filled_quantity} of ${order.quantity} so far)` : ''}; ${remaining} still open.`;
  else if (order.status === 'cancelled' && remaining > 0)
    after = `; the other ${remaining} found no match at your price and were cancelled.`;
  const kind = isCopyOrder(order) ? 'Copy trade' : 'Order';
  return {
    title: order.status === 'filled' ? `${kind} filled` : `${kind} partly filled`,
    body: `Your order to ${orderPhrase(order, market)} filled ${filled} at ${cents(averagePrice)}${after}`,
  };
}

const CANCEL_REASONS: Record<string, string> = {
  cancelled_by_user: 'you cancelled it',
  self_trade_prevented:
    'your own new order on the other side would have traded with it (self-trade prevention)',
  market_closed: 'the market closed',
  unfilled_remainder: 'nothing more could fill at your price',
};

export function cancelText(
  order: OrderRow,
  market: MarketNames,
  reason: string,
): { title: string; body: string } {
  const why = CANCEL_REASONS[reason] ?? reason.replaceAll('_', ' ');
  const partly =
    order.filled_quantity > 0 ? ` (${order.filled_quantity} of ${order.quantity} had filled)` : '';
  return {
    title: reason === 'market_closed' ? 'Order cancelled: market closed' : 'Order cancelled',
    body: `Your order to ${orderPhrase(order, market)} was cancelled: ${why}${partly}.`,
  };
}

export function expiryText(order: OrderRow, market: MarketNames): { title: string; body: string } {
  const remaining = order.quantity - order.filled_quantity;
  const partly = order.filled_quantity > 0 ? ` (${order.filled_quantity} had filled)` : '';
  return {
    title: 'Order expired',
    body: `Your order to ${orderPhrase(order, market)} expired with ${remaining} unfilled${partly}.`,
  };
}

function credits(cents: number): string {
  return `${(Math.abs(cents) / 100).toFixed(2)} credits`;
}

/** "Split: 10 complete sets of Who wins the cup for 10.00 credits"; "Converted 5 NO of India into …" */
export function conversionText(conversion: ConversionCommitted): { title: string; body: string } {
  const { quantity, cashCents, names } = conversion;
  const label = (optionId: number) => names.labels.get(optionId) ?? String(optionId);
  switch (conversion.kind) {
    case 'split':
      return {
        title: 'Shares split',
        body: `You bought ${quantity} complete sets of ${names.eventTitle} (a YES of every option) for ${credits(cashCents)}.`,
      };
    case 'merge':
      return {
        title: 'Shares merged',
        body: `You turned ${quantity} complete sets of ${names.eventTitle} back into ${credits(cashCents)}.`,
      };
    default: {
      const given = conversion.optionIds.map(label).join(', ');
      const paid = cashCents === 0 ? '' : ` and ${cashCents > 0 ? 'received' : 'paid'} ${credits(cashCents)}`;
      return {
        title: 'Shares converted',
        body: `You converted ${quantity} NO of ${given} in ${names.eventTitle} into YES of every other option${paid}.`,
      };
    }
  }
}

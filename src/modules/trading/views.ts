import type { Side } from '../../exchange/money.js';
import type { EndReason } from '../../exchange/orders.js';
import type { Outcome } from '../../exchange/positions.js';
import { markOf, valueHolding } from '../../exchange/valuation.js';
import { ValidationError } from '../../platform/errors.js';
import type { OrderRow, TradeRow } from './repository.js';
import type { ConversionCommitted } from './types.js';

/** The wire forms of orders, trades, conversions and positions. */

/** A placed order with its market's names, the trades of its match and the own orders it cancelled. */
export interface PlacedOrder {
  order: OrderRow & { event_slug: string; option_label: string };
  trades: TradeRow[];
  selfTradeCancelled: number[];
}

/** The wire form of a placed order, also what an idempotent retry replays. */
export function serialisePlaced(placed: PlacedOrder) {
  const order = placed.order;
  const notional = placed.trades
    .filter((t) => t.order_id === order.id)
    .reduce((sum, t) => sum + t.quantity * t.price_cents, 0);
  const own = placed.trades.filter((t) => t.order_id === order.id);
  return {
    ...toOrderView(order),
    averagePriceCents: order.filled_quantity > 0 ? Math.round(notional / order.filled_quantity) : null,
    feeCents: own.reduce((sum, t) => sum + t.fee_cents, 0),
    trades: own.map((t) =>
      toTradeView({
        ...t,
        event_slug: order.event_slug,
        option_label: order.option_label,
        order_kind: order.kind,
      }),
    ),
    selfTradeCancelledOrderIds: placed.selfTradeCancelled.map(String),
  };
}

export function toOrderView(order: OrderRow & { event_slug: string; option_label: string }) {
  return {
    id: String(order.id),
    optionId: String(order.option_id),
    eventSlug: order.event_slug,
    optionLabel: order.option_label,
    kind: order.kind,
    side: order.side,
    action: order.action,
    quantity: order.quantity,
    priceCents: order.price_cents,
    filledQuantity: order.filled_quantity,
    remainingQuantity: order.quantity - order.filled_quantity,
    status: order.status,
    // The column holds only what the core wrote: one of its end reasons.
    cancelReason: order.cancel_reason as EndReason | null,
    reservedCents: order.reserved_cents,
    clientOrderId: order.client_order_id,
    timeInForce: order.time_in_force,
    postOnly: order.post_only,
    expiresAt: order.expires_at ? order.expires_at.toISOString() : null,
    replacesOrderId: order.replaces_order_id === null ? null : String(order.replaces_order_id),
    createdAt: order.created_at.toISOString(),
    updatedAt: order.updated_at.toISOString(),
  };
}

export function toTradeView(
  trade: TradeRow & { event_slug: string; option_label: string; order_kind: 'market' | 'limit' },
) {
  return {
    id: String(trade.id),
    orderId: String(trade.order_id),
    optionId: String(trade.option_id),
    eventSlug: trade.event_slug,
    optionLabel: trade.option_label,
    side: trade.side,
    action: trade.action,
    quantity: trade.quantity,
    priceCents: trade.price_cents,
    feeCents: trade.fee_cents,
    liquidity: trade.liquidity,
    orderKind: trade.order_kind,
    createdAt: trade.created_at.toISOString(),
  };
}

/** A position as the API shows it, marked and valued by the one rule (src/exchange/valuation.ts). */
export interface PositionViewSource {
  id: number;
  option_id: number;
  side: Side;
  quantity: number;
  reserved_quantity: number;
  cost_cents: number;
  realized_pnl_cents: number;
  stop_loss_bps: number | null;
  take_profit_bps: number | null;
  event_slug: string;
  event_title: string;
  option_label: string;
  last_yes_price: number | null;
  /** For an option that never traded: the YES price its event's last conversion booked it at. */
  conversion_yes_price: number | null;
  resolution: Outcome | null;
  /** What a YES share pays once resolved (a NO share the rest of 100). */
  yes_payout_cents: number | null;
}

export function toPositionView(p: PositionViewSource) {
  const value = valueOfHolding(p);
  return {
    id: String(p.id),
    optionId: String(p.option_id),
    eventSlug: p.event_slug,
    eventTitle: p.event_title,
    optionLabel: p.option_label,
    side: p.side,
    quantity: p.quantity,
    reservedQuantity: p.reserved_quantity,
    costCents: p.cost_cents,
    realizedPnlCents: p.realized_pnl_cents,
    stopLossProbBps: p.stop_loss_bps,
    takeProfitProbBps: p.take_profit_bps,
    resolution: p.resolution,
    ...value,
  };
}

/**
 * What a user's open positions are worth and would gain or lose, from their positions summed per mark's inputs
 * (TradingReadsRepository.holdingGroups): each group valued by the rule of every position, so the sums equal those
 * of `toPositionView` over the positions one by one.
 */
export function valueOfGroups(groups: HoldingSource[]) {
  let valueCents = 0;
  let unrealizedPnlCents = 0;
  for (const group of groups) {
    const value = valueOfHolding(group);
    valueCents += value.valueCents;
    unrealizedPnlCents += value.unrealizedPnlCents;
  }
  return { valueCents, unrealizedPnlCents };
}

/** What values a holding (one position, or positions summed per mark's inputs). */
type HoldingSource = Pick<
  PositionViewSource,
  | 'side'
  | 'quantity'
  | 'cost_cents'
  | 'last_yes_price'
  | 'conversion_yes_price'
  | 'resolution'
  | 'yes_payout_cents'
>;

/** A holding's mark by the valuation rule, and its value and unrealized P&L at that mark. */
function valueOfHolding(h: HoldingSource) {
  const mark = markOf(h.side, {
    resolution: h.resolution,
    yesPayoutCents: h.yes_payout_cents,
    lastTradeYesCents: h.last_yes_price,
    lastConversionYesCents: h.conversion_yes_price,
  });
  return valueHolding({ quantity: h.quantity, costCents: h.cost_cents }, mark);
}

/** The sort key a page of positions ends on, as its cursor carries it: the option and the side (NO 0, YES 1). */
export function positionCursorOf(optionId: number, side: Side): number[] {
  return [optionId, side === 'YES' ? 1 : 0];
}

/** The position a page starts after, from the values of its cursor; a cursor that names none is refused. */
export function positionAfterCursor(
  values: (string | number)[] | null,
): { optionId: number; side: Side } | null {
  if (values === null) return null;
  const [optionId, side] = values.map(Number);
  if (optionId === undefined || optionId < 1 || (side !== 0 && side !== 1)) {
    throw new ValidationError('Invalid cursor', [
      { field: 'query.cursor', message: 'is not a cursor from this API' },
    ]);
  }
  return { optionId, side: side === 1 ? 'YES' : 'NO' };
}

/** A conversion between an exclusive event's options: what the user gave and received, and the cash it moved. */
export function toConversionView(
  conversion: {
    id: number;
    eventId: number;
    kind: 'convert' | 'split' | 'merge';
    quantity: number;
    optionIds: number[];
    cashCents: number;
    legs: { optionId: number; side: Side; quantity: number; priceCents: number }[];
    createdAt: Date;
  },
  names: { slug: string; label: (optionId: number) => string },
) {
  return {
    id: String(conversion.id),
    eventId: String(conversion.eventId),
    eventSlug: names.slug,
    type: conversion.kind,
    quantity: conversion.quantity,
    optionIds: conversion.optionIds.map(String),
    cashCents: conversion.cashCents,
    legs: conversion.legs.map((leg) => ({
      optionId: String(leg.optionId),
      optionLabel: names.label(leg.optionId),
      side: leg.side,
      quantity: leg.quantity,
      priceCents: leg.priceCents,
    })),
    createdAt: conversion.createdAt.toISOString(),
  };
}

/** A stored conversion, as the list of a user's conversions shows it. */
export function conversionViewOf(row: {
  id: number;
  event_id: number;
  kind: 'convert' | 'split' | 'merge';
  quantity: number;
  option_ids: number[];
  cash_cents: number;
  legs: unknown;
  created_at: Date;
  event_slug: string;
  labels: Record<string, string>;
}) {
  return toConversionView(
    {
      id: row.id,
      eventId: row.event_id,
      kind: row.kind,
      quantity: row.quantity,
      optionIds: row.option_ids.map(Number),
      cashCents: row.cash_cents,
      legs: row.legs as Parameters<typeof toConversionView>[0]['legs'],
      createdAt: row.created_at,
    },
    { slug: row.event_slug, label: (optionId) => row.labels[String(optionId)] ?? '' },
  );
}

/** A conversion as the transaction that made it announces it: the same view as GET /api/conversions. */
export function committedConversionView(conversion: ConversionCommitted) {
  const { names } = conversion;
  return toConversionView(conversion, {
    slug: names.eventSlug,
    label: (optionId) => names.labels.get(optionId) ?? '',
  });
}

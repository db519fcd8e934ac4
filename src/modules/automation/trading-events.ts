import { sideBySide } from '../../platform/db/side-by-side.js';
import type { Tx } from '../../platform/db/types.js';
import type { NewNotification, ReservedIds } from '../notifications/repository.js';
import type { NotificationsService } from '../notifications/service.js';
import type { OrderRow, TradeRow } from '../trading/repository.js';
import type { ConversionCommitted, OrderCommitted, PlacedScope } from '../trading/types.js';
import { committedConversionView, toTradeView } from '../trading/views.js';
import {
  type Subscription,
  type WebhookEvent,
  WebhookEvents,
  type WebhookOutbox,
} from '../webhooks/module.js';
import type { AutomationRepository, MarketNames } from './repository.js';
import { cancelText, conversionText, expiryText, fillText } from './words.js';

/** The order as webhooks describe it (what its owner sees in GET /api/limit-orders, without the cash held). */
export function orderSummary(order: OrderRow, market: MarketNames) {
  return {
    id: String(order.id),
    optionId: String(order.option_id),
    eventSlug: market.event_slug,
    optionLabel: market.option_label,
    kind: order.kind,
    side: order.side,
    action: order.action,
    quantity: order.quantity,
    priceCents: order.price_cents,
    filledQuantity: order.filled_quantity,
    remainingQuantity: order.quantity - order.filled_quantity,
    status: order.status,
    cancelReason: order.cancel_reason,
    clientOrderId: order.client_order_id,
    createdAt: order.created_at.toISOString(),
  };
}

/** The market's names of a committed order, as the trading transaction read them under the market's lock. */
function namesOf(change: OrderCommitted): MarketNames {
  return {
    option_id: change.optionId,
    option_label: change.names.optionLabel,
    event_id: change.eventId,
    event_slug: change.names.eventSlug,
    event_title: change.names.eventTitle,
  };
}

/** What announcing placed orders reads first (see `TradingEvents.read`). */
export interface PlacedReads {
  off: Set<number>;
  subscriptions: Subscription[];
  reserved: ReservedIds;
}

/**
 * Turns what the exchange committed into feed items (one per order and user, in human words) and typed webhook
 * events, in the order's own transaction. Users who turned trade notifications off get no feed item; their
 * webhook subscriptions still receive the events.
 */
export class TradingEvents {
  constructor(
    private readonly automation: AutomationRepository,
    private readonly notifications: NotificationsService,
    private readonly outbox: WebhookOutbox,
  ) {}

  /**
   * What announcing a decision's placed orders needs to read, for every user it may concern (`scope.users`, the
   * owners of the orders that traded or were cancelled, or more): who turned trade notifications off, their webhook
   * subscriptions, and ids for at most one feed item per trade and per order cancelled (`scope.orders`), so that
   * the feed items and their notices are then written in one go. The order pipeline sends it before the writes.
   */
  async read(trx: Tx, scope: PlacedScope): Promise<PlacedReads> {
    const [off, subscriptions, reserved] = await sideBySide([
      this.automation.tradeNotificationsOff(trx, scope.users),
      this.outbox.subscriptionsOf(trx, scope.users),
      this.notifications.reserve(trx, scope.orders),
    ] as const);
    return { off, subscriptions, reserved };
  }

  /**
   * `read`: what `read` gave before the decision's writes; the pipeline reads whenever a decision traded or cancelled,
   * which is when there is anything to announce here.
   */
  async ordersCommitted(trx: Tx, changes: OrderCommitted[], read?: PlacedReads): Promise<void> {
    const busy = changes.filter((change) => change.trades.length > 0 || change.cancelledOrders.length > 0);
    if (busy.length === 0) return;
    if (!read)
      throw new Error('orders that traded or were cancelled came without what announcing them reads');
    const { off, subscriptions, reserved } = read;
    const notices: NewNotification[] = [];
    const events = new WebhookEvents(subscriptions);
    for (const change of busy) this.describe(change, namesOf(change), notices, events);
    await this.publish(trx, notices, events.list, { off, subscriptions, reserved });
  }

  private describe(
    change: OrderCommitted,
    market: MarketNames,
    notices: NewNotification[],
    events: WebhookEvents,
  ): void {
    const { trades, cancelledOrders } = change;
    const orders = new Map(
      [change.order, ...change.makerOrders, ...cancelledOrders].map((order) => [order.id, order]),
    );
    const byOrder = new Map<number, TradeRow[]>();
    for (const trade of trades) byOrder.set(trade.order_id, [...(byOrder.get(trade.order_id) ?? []), trade]);

    for (const [orderId, own] of byOrder) {
      const order = orders.get(orderId);
      if (!order) continue;
      const filled = own.reduce((sum, t) => sum + t.quantity, 0);
      const notional = own.reduce((sum, t) => sum + t.quantity * t.price_cents, 0);
      const average = notional / filled;
      const summary = {
        orderId: String(order.id),
        optionId: String(order.option_id),
        eventSlug: market.event_slug,
        side: order.side,
        action: order.action,
        filledQuantity: filled,
        notionalCents: notional,
        averagePriceCents: Math.round(average),
        feeCents: own.reduce((sum, t) => sum + t.fee_cents, 0),
        status: order.status,
      };
      notices.push({
        userId: order.user_id,
        type: 'order.filled',
        ...fillText(order, market, filled, average),
        data: summary,
      });
      events.add(order.user_id, 'order.filled', () => ({
        order: orderSummary(order, market),
        liquidity: own[0]?.liquidity ?? 'taker',
        filledQuantity: filled,
        notionalCents: notional,
        averagePriceCents: Math.round(average),
        feeCents: summary.feeCents,
      }));
      for (const trade of own) {
        events.add(order.user_id, 'trade.executed', () =>
          toTradeView({
            ...trade,
            event_slug: market.event_slug,
            option_label: market.option_label,
            order_kind: order.kind,
          }),
        );
      }
    }
    for (const order of cancelledOrders) {
      const reason = order.cancel_reason ?? 'self_trade_prevented';
      this.addEnded(notices, events, order, market, 'order.cancelled', reason);
    }
  }

  async ordersEnded(
    trx: Tx,
    orders: OrderRow[],
    kind: 'cancelled' | 'expired' | 'market_closed',
  ): Promise<void> {
    if (orders.length === 0) return;
    const users = [...new Set(orders.map((o) => o.user_id))];
    const [markets, subscriptions] = await sideBySide([
      this.automation.marketNames(trx, [...new Set(orders.map((o) => o.option_id))]),
      this.outbox.subscriptionsOf(trx, users),
    ] as const);
    const notices: NewNotification[] = [];
    const events = new WebhookEvents(subscriptions);
    for (const order of orders) {
      const market = markets.find((m) => m.option_id === order.option_id);
      if (!market) continue;
      const type = kind === 'expired' ? 'order.expired' : 'order.cancelled';
      this.addEnded(notices, events, order, market, type, order.cancel_reason ?? kind);
    }
    await this.publish(trx, notices, events.list, { subscriptions });
  }

  /** A conversion is announced like a fill: a feed item in the trader's words and a `conversion.completed` event. */
  async conversionsMade(trx: Tx, conversions: ConversionCommitted[]): Promise<void> {
    if (conversions.length === 0) return;
    const users = [...new Set(conversions.map((c) => c.userId))];
    const subscriptions = await this.outbox.subscriptionsOf(trx, users);
    const notices: NewNotification[] = [];
    const events = new WebhookEvents(subscriptions);
    for (const conversion of conversions) {
      const view = committedConversionView(conversion);
      notices.push({
        userId: conversion.userId,
        type: 'conversion.completed',
        ...conversionText(conversion),
        data: {
          conversionId: view.id,
          eventId: view.eventId,
          eventSlug: view.eventSlug,
          type: view.type,
          quantity: view.quantity,
          cashCents: view.cashCents,
        },
      });
      events.add(conversion.userId, 'conversion.completed', () => view);
    }
    await this.publish(trx, notices, events.list, { subscriptions });
  }

  private addEnded(
    notices: NewNotification[],
    events: WebhookEvents,
    order: OrderRow,
    market: MarketNames,
    type: 'order.cancelled' | 'order.expired',
    reason: string,
  ): void {
    const text = type === 'order.expired' ? expiryText(order, market) : cancelText(order, market, reason);
    notices.push({
      userId: order.user_id,
      type,
      ...text,
      data: {
        orderId: String(order.id),
        optionId: String(order.option_id),
        eventSlug: market.event_slug,
        reason,
        filledQuantity: order.filled_quantity,
        quantity: order.quantity,
      },
    });
    events.add(order.user_id, type, () => ({ order: orderSummary(order, market), reason }));
  }

  /**
   * Writes feed items for those who accept them, and the webhook events, in the caller's transaction. What the
   * caller has read already: `off`, the users who turned trade notifications off; `subscriptions`, the users'
   * webhook subscriptions; `reserved`, ids for at least as many feed items as `notices`.
   */
  async publish(
    trx: Tx,
    notices: NewNotification[],
    events: WebhookEvent[],
    read: { off?: Set<number>; subscriptions?: Subscription[]; reserved?: ReservedIds } = {},
  ): Promise<void> {
    const silent =
      read.off ??
      (notices.length > 0
        ? await this.automation.tradeNotificationsOff(trx, [...new Set(notices.map((n) => n.userId))])
        : new Set<number>());
    const wanted = notices.filter((n) => !silent.has(n.userId));
    await sideBySide([
      wanted.length > 0 ? this.notifications.notify(trx, wanted, read.reserved) : Promise.resolve(),
      this.outbox.publish(trx, events, read.subscriptions),
    ]);
  }
}

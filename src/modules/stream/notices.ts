import { type NotificationsService, toNotification } from '../notifications/service.js';
import type { DiscussionEvents } from '../social/discussion-events.js';
import type { OrderRow, TradeRow } from '../trading/repository.js';
import type { TradingService } from '../trading/service.js';
import type { BookChange, LadderLevel } from '../trading/types.js';
import { committedConversionView } from '../trading/views.js';
import type { StreamRepository, WindowEntry } from './repository.js';

export const BOOK_CHANNEL = 'pmx_book';
export const USER_CHANNEL = 'pmx_user';
/** Changes to a market's discussion; its status changes come on the catalogue's own channel. */
export const DISCUSSION_CHANNEL = 'pmx_discussion';
/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; bigger changes go out as "resynchronise". */
const MAX_PAYLOAD = 7500;

export interface BookNotice {
  optionId: number;
  seq: number;
  levels?: LadderLevel[];
  fills?: (Omit<BookChange['fills'][number], 'id'> & { id: string })[];
  resync?: true;
}

export interface UserNotice {
  userId: number;
  orders: ReturnType<typeof orderEvent>[];
  fills: ReturnType<typeof fillEvent>[];
  notifications?: ReturnType<typeof toNotification>[];
  conversions?: ReturnType<typeof committedConversionView>[];
}

/**
 * The stream's notices, announced with NOTIFY from inside the transactions that make the changes (book changes,
 * users' orders, fills and conversions, feed items, discussion changes), so that PostgreSQL delivers them to every
 * instance exactly when (and only if) they commit. StreamFanOut (fan-out.ts) hears them.
 */
export class StreamNotices {
  constructor(private readonly stream: StreamRepository) {}

  /** Announces book changes and users' order events from inside the trading transactions. */
  attach(trading: TradingService): void {
    trading.onBookChanged((trx, changes) =>
      this.stream.announceBookChanges(trx, BOOK_CHANNEL, changes.map(windowEntry), MAX_PAYLOAD),
    );
    trading.onOrderCommitted(async (trx, changes) => {
      const notices = new Map<number, UserNotice>();
      const noticeOf = (userId: number) => {
        let notice = notices.get(userId);
        if (!notice) {
          notice = { userId, orders: [], fills: [] };
          notices.set(userId, notice);
        }
        return notice;
      };
      for (const change of changes) {
        for (const order of [change.order, ...change.makerOrders, ...change.cancelledOrders]) {
          noticeOf(order.user_id).orders.push(orderEvent(order));
        }
        for (const trade of change.trades) noticeOf(trade.user_id).fills.push(fillEvent(trade));
      }
      await this.notifyUsers(trx, [...notices.values()]);
    });
    const ordersChanged = async (trx: Parameters<StreamRepository['notify']>[0], orders: OrderRow[]) => {
      const byUser = new Map<number, OrderRow[]>();
      for (const order of orders) byUser.set(order.user_id, [...(byUser.get(order.user_id) ?? []), order]);
      await this.notifyUsers(
        trx,
        [...byUser].map(([userId, own]) => ({ userId, orders: own.map(orderEvent), fills: [] })),
      );
    };
    trading.onOrdersEnded(ordersChanged);
    trading.onOrdersAmended(ordersChanged);
    trading.onConverted(async (trx, conversions) => {
      const byUser = new Map<number, UserNotice>();
      for (const conversion of conversions) {
        const notice = byUser.get(conversion.userId) ?? { userId: conversion.userId, orders: [], fills: [] };
        notice.conversions = [...(notice.conversions ?? []), committedConversionView(conversion)];
        byUser.set(conversion.userId, notice);
      }
      await this.notifyUsers(trx, [...byUser.values()]);
    });
  }

  /** Announces each change to a market's discussion (posts, likes, comments, removals) on its event channel. */
  attachDiscussion(events: DiscussionEvents): void {
    events.on(async (db, change) => {
      await this.stream.notify(db, DISCUSSION_CHANNEL, JSON.stringify(change));
    });
  }

  /** Sends each new feed item to its user's channel, from the transaction that wrote it. */
  attachNotifications(notifications: NotificationsService): void {
    notifications.onNotified(async (trx, rows) => {
      const byUser = new Map<number, UserNotice>();
      for (const row of rows) {
        const notice = byUser.get(row.user_id) ?? {
          userId: row.user_id,
          orders: [],
          fills: [],
          notifications: [],
        };
        notice.notifications?.push(toNotification(row));
        byUser.set(row.user_id, notice);
      }
      await this.notifyUsers(trx, [...byUser.values()]);
    });
  }

  /** One NOTIFY for every user an order touched; a user whose part is too big is told to resynchronise. */
  private async notifyUsers(
    trx: Parameters<StreamRepository['notify']>[0],
    notices: UserNotice[],
  ): Promise<void> {
    if (notices.length === 0) return;
    // As few notifications as fit, all sent in one statement.
    const payloads: string[] = [];
    let part: string[] = [];
    let size = 2;
    for (const notice of notices) {
      let text = JSON.stringify(notice);
      if (text.length > MAX_PAYLOAD)
        text = JSON.stringify({ userId: notice.userId, orders: [], fills: [], resync: true });
      if (part.length > 0 && size + text.length + 1 > MAX_PAYLOAD) {
        payloads.push(`[${part.join(',')}]`);
        part = [];
        size = 2;
      }
      part.push(text);
      size += text.length + 1;
    }
    if (part.length > 0) payloads.push(`[${part.join(',')}]`);
    await this.stream.notifyMany(trx, USER_CHANNEL, payloads);
  }
}

function orderEvent(order: OrderRow) {
  return {
    id: String(order.id),
    optionId: String(order.option_id),
    kind: order.kind,
    side: order.side,
    action: order.action,
    priceCents: order.price_cents,
    quantity: order.quantity,
    filledQuantity: order.filled_quantity,
    status: order.status,
    cancelReason: order.cancel_reason,
  };
}

function fillEvent(trade: TradeRow) {
  return {
    id: String(trade.id),
    orderId: String(trade.order_id),
    optionId: String(trade.option_id),
    side: trade.side,
    action: trade.action,
    quantity: trade.quantity,
    priceCents: trade.price_cents,
    feeCents: trade.fee_cents,
    liquidity: trade.liquidity,
    createdAt: trade.created_at.toISOString(),
  };
}

/** A book change as the window keeps it and its notice says it: the levels it touched and its fills. */
function windowEntry(change: BookChange): WindowEntry {
  const notice: BookNotice = {
    optionId: change.optionId,
    seq: change.bookVersion,
    levels: change.levels,
    // Ids are strings on the wire, as everywhere in the API.
    fills: change.fills.map((fill) => ({ ...fill, id: String(fill.id) })),
  };
  return {
    optionId: change.optionId,
    seq: change.bookVersion,
    traded: change.fills.length > 0,
    message: JSON.stringify(notice),
  };
}

import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../platform/db/database.js';
import { CATALOGUE_CHANNEL } from '../markets/repository.js';
import { type NotificationsService, toNotification } from '../notifications/service.js';
import type { DiscussionChange, DiscussionEvents } from '../social/discussion-events.js';
import type { OrderRow, TradeRow } from '../trading/repository.js';
import type { TradingService } from '../trading/service.js';
import type { BookChange, LadderLevel } from '../trading/types.js';
import type { StreamClient, StreamHub } from './hub.js';
import type { StreamRepository } from './repository.js';

const BOOK_CHANNEL = 'pmx_book';
const USER_CHANNEL = 'pmx_user';
/** Changes to a market's discussion; its status changes come on the catalogue's own channel. */
const DISCUSSION_CHANNEL = 'pmx_discussion';
/** A fresh snapshot that cannot be read is tried again this often, this many times (about 10 s in all). */
const SNAPSHOT_RETRY_MS = 500;
const SNAPSHOT_RETRIES = 20;
/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; bigger changes go out as "resynchronise". */
const MAX_PAYLOAD = 7500;

interface BookNotice {
  optionId: number;
  seq: number;
  levels?: LadderLevel[];
  fills?: (Omit<BookChange['fills'][number], 'id'> & { id: string })[];
  resync?: true;
}

interface UserNotice {
  userId: number;
  orders: ReturnType<typeof orderEvent>[];
  fills: ReturnType<typeof fillEvent>[];
  notifications?: ReturnType<typeof toNotification>[];
}

/**
 * Live market data. Every change to a book is announced with NOTIFY inside its own transaction, so PostgreSQL
 * delivers it to every instance exactly when (and only if) it commits, in commit order; each instance then fans
 * it out to its WebSocket subscribers.
 */
export class StreamService {
  private stopListening: (() => Promise<void>)[] = [];
  private trading: TradingService | null = null;

  constructor(
    private readonly database: Database,
    private readonly stream: StreamRepository,
    private readonly hub: StreamHub,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Announces book changes and users' order events from inside the trading transactions. */
  attach(trading: TradingService): void {
    this.trading = trading;
    trading.onBookChanged(async (trx, change) => {
      let notice: BookNotice = {
        optionId: change.optionId,
        seq: change.bookVersion,
        levels: change.levels,
        // Ids are strings on the wire, as everywhere in the API.
        fills: change.fills.map((fill) => ({ ...fill, id: String(fill.id) })),
      };
      let payload = JSON.stringify(notice);
      if (payload.length > MAX_PAYLOAD) {
        notice = { optionId: change.optionId, seq: change.bookVersion, resync: true };
        payload = JSON.stringify(notice);
      }
      await this.stream.notify(trx, BOOK_CHANNEL, payload);
    });
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

  async start(): Promise<void> {
    const guard = (handle: (payload: string) => void) => (payload: string) => {
      try {
        handle(payload);
      } catch (err) {
        this.log.error({ err }, 'could not fan out a market-data notice');
      }
    };
    this.stopListening.push(
      await this.database.listen(
        BOOK_CHANNEL,
        guard((p) => this.onBookNotice(p)),
        (listening) => this.onGap(['book:', 'trades:'], listening),
      ),
    );
    this.stopListening.push(
      await this.database.listen(
        USER_CHANNEL,
        guard((p) => this.onUserNotice(p)),
        (listening) => this.onGap(['user:'], listening),
      ),
    );
    this.stopListening.push(
      await this.database.listen(
        DISCUSSION_CHANNEL,
        guard((p) => this.onDiscussionNotice(p)),
        (listening) => this.onGap(['event:'], listening),
      ),
    );
    this.stopListening.push(
      await this.database.listen(
        CATALOGUE_CHANNEL,
        guard((p) => this.onCatalogueNotice(p)),
        (listening) => this.onGap(['event:'], listening),
      ),
    );
  }

  /**
   * Notices sent while a listening connection was down are lost, so every subscriber of the channels it carries is
   * told at once: `resync` when it drops (what it holds may be stale), and when it listens again a fresh `snapshot`
   * on book channels (a `resync` on the others, whose clients reload over the REST API).
   */
  private onGap(prefixes: string[], listening: boolean): void {
    for (const channel of this.hub.channelNames()) {
      if (!prefixes.some((prefix) => channel.startsWith(prefix))) continue;
      const members = this.hub.members(channel);
      const wire = channel.startsWith('user:') ? 'user' : channel;
      if (listening && channel.startsWith('book:')) {
        this.resnapshot(members, channel);
        continue;
      }
      const reason = listening
        ? 'live updates resumed after an interruption; reload what you hold'
        : channel.startsWith('book:')
          ? 'live updates interrupted; a fresh snapshot follows when they resume'
          : 'live updates interrupted; reload when they resume';
      for (const client of members) client.send({ type: 'resync', channel: wire, reason });
    }
  }

  /**
   * A fresh snapshot for the subscribers of a book channel whose books may be stale: read once, sent to each;
   * retried while the database is out of reach.
   */
  private resnapshot(clients: StreamClient[], channel: string, attempt = 0): void {
    const waiting = clients.filter((client) => {
      const subscription = client.subscriptions.get(channel);
      if (!subscription || client.socket.readyState !== client.socket.OPEN) return false;
      subscription.ready = false;
      return true;
    });
    if (waiting.length === 0) return;
    this.snapshot(Number(channel.split(':')[1])).then(
      (snapshot) => {
        for (const client of waiting) {
          if (!snapshot) this.hub.remove(client, channel);
          else if (client.subscriptions.has(channel)) {
            client.send({ type: 'snapshot', channel, ...snapshot });
            this.hub.markReady(client, channel, snapshot.seq);
          }
        }
      },
      (err: unknown) => {
        if (attempt < SNAPSHOT_RETRIES) {
          setTimeout(() => this.resnapshot(waiting, channel, attempt + 1), SNAPSHOT_RETRY_MS).unref();
          return;
        }
        this.log.warn({ err, channel }, 'could not send a fresh snapshot; dropping the subscriptions');
        for (const client of waiting) {
          this.hub.remove(client, channel);
          client.send({ type: 'error', code: 'DATABASE_UNAVAILABLE', error: 'Subscribe again', channel });
        }
      },
    );
  }

  async stop(): Promise<void> {
    await Promise.all(this.stopListening.map((stop) => stop()));
    this.stopListening = [];
  }

  private onBookNotice(payload: string): void {
    const notice = JSON.parse(payload) as BookNotice;
    const channel = `book:${notice.optionId}`;
    if (notice.resync) {
      this.resnapshot(this.hub.members(channel), channel);
    } else {
      this.hub.publish(channel, { type: 'delta', channel, seq: notice.seq, levels: notice.levels ?? [] });
    }
    if (notice.fills?.length) {
      const trades = `trades:${notice.optionId}`;
      this.hub.publish(trades, { type: 'trades', channel: trades, seq: notice.seq, trades: notice.fills });
    }
  }

  private onUserNotice(payload: string): void {
    // Every instance hears every user's notices; one with no user subscribers has nothing to do with them.
    if (!this.hub.hasChannelStartingWith('user:')) return;
    for (const notice of JSON.parse(payload) as (UserNotice & { resync?: true })[]) {
      const channel = `user:${notice.userId}`;
      if (notice.resync) {
        this.hub.publish(channel, {
          type: 'resync',
          channel: 'user',
          reason: 'too many changes at once; reload your orders',
        });
        continue;
      }
      for (const order of notice.orders) this.hub.publish(channel, { type: 'order', channel: 'user', order });
      for (const fill of notice.fills) this.hub.publish(channel, { type: 'fill', channel: 'user', fill });
      for (const notification of notice.notifications ?? []) {
        this.hub.publish(channel, { type: 'notification', channel: 'user', notification });
      }
    }
  }

  private onDiscussionNotice(payload: string): void {
    const change = JSON.parse(payload) as DiscussionChange;
    const channel = `event:${change.eventId}`;
    this.hub.publish(channel, {
      type: 'discussion',
      channel,
      postId: String(change.postId),
      change: change.change,
      likeCount: change.likeCount,
      commentCount: change.commentCount,
    });
  }

  /** A catalogue change: each changed event with subscribers here gets its status as it now stands. */
  private onCatalogueNotice(payload: string): void {
    const { eventIds } = JSON.parse(payload) as { eventIds: number[] };
    const watched = eventIds.filter((eventId) => this.hub.members(`event:${eventId}`).length > 0);
    if (watched.length === 0) return;
    this.stream.eventStatuses(this.database.db, watched).then(
      (rows) => {
        for (const row of rows) {
          const channel = `event:${row.id}`;
          this.hub.publish(channel, { type: 'market', channel, eventId: String(row.id), status: row.status });
        }
      },
      (err: unknown) => {
        // The status could not be read: the subscribers reload the market themselves.
        this.log.warn({ err }, 'could not read the status of changed events');
        for (const eventId of watched) {
          const channel = `event:${eventId}`;
          this.hub.publish(channel, { type: 'resync', channel, reason: 'the market changed; reload it' });
        }
      },
    );
  }

  /** The YES ladder of an option with house depth, at a book version: the same read as GET /api/orderbook. */
  async snapshot(optionId: number) {
    const found = await this.trading?.book(optionId);
    if (!found) return null;
    const { option, levels } = found;
    return {
      seq: option.book_version,
      eventId: String(option.event_id),
      exclusive: option.exclusive,
      lastYesPriceCents: option.last_yes_price,
      bids: levels.filter((level) => level.side === 'bid'),
      asks: levels.filter((level) => level.side === 'ask'),
    };
  }

  /** Subscribes a client; a book channel starts with a snapshot, then deltas. */
  async subscribe(client: StreamClient, channel: string): Promise<void> {
    const [kind, id] = channel.split(':');
    if (kind === 'user') {
      if (client.userId === null)
        throw new StreamError('UNAUTHENTICATED', 'The user channel needs an API key or session token');
      this.hub.add(client, `user:${client.userId}`, true);
      client.send({ type: 'subscribed', channel: 'user' });
      return;
    }
    if ((kind !== 'book' && kind !== 'trades' && kind !== 'event') || !id || !/^[1-9]\d{0,15}$/.test(id)) {
      throw new StreamError(
        'BAD_CHANNEL',
        `Unknown channel "${channel}": use book:<optionId>, trades:<optionId>, event:<eventId> or user`,
      );
    }
    if (kind === 'event') {
      const [event] = await this.stream.eventStatuses(this.database.db, [Number(id)]);
      if (!event || event.status === 'draft') throw new StreamError('NOT_FOUND', 'Event not found');
      this.hub.add(client, channel, true);
      client.send({ type: 'subscribed', channel });
      return;
    }
    if (kind === 'trades') {
      if (!(await this.snapshot(Number(id)))) throw new StreamError('NOT_FOUND', 'Option not found');
      this.hub.add(client, channel, true);
      client.send({ type: 'subscribed', channel });
      return;
    }
    this.hub.add(client, channel, false);
    try {
      await this.sendSnapshot(client, channel, Number(id));
    } catch (error) {
      this.hub.remove(client, channel);
      throw error;
    }
  }

  unsubscribe(client: StreamClient, channel: string): void {
    this.hub.remove(client, channel === 'user' && client.userId !== null ? `user:${client.userId}` : channel);
    client.send({ type: 'unsubscribed', channel });
  }

  /** A fresh snapshot for a client that saw a gap in the sequence. */
  async resync(client: StreamClient, channel: string): Promise<void> {
    const [kind, id] = channel.split(':');
    if (kind !== 'book' || !client.subscriptions.has(channel)) {
      throw new StreamError('NOT_SUBSCRIBED', `Subscribe to ${channel} before asking to resync it`);
    }
    const subscription = client.subscriptions.get(channel);
    if (subscription) subscription.ready = false;
    await this.sendSnapshot(client, channel, Number(id));
  }

  private async sendSnapshot(client: StreamClient, channel: string, optionId: number): Promise<void> {
    const snapshot = await this.snapshot(optionId);
    if (!snapshot) {
      this.hub.remove(client, channel);
      throw new StreamError('NOT_FOUND', 'Option not found');
    }
    client.send({ type: 'snapshot', channel, ...snapshot });
    this.hub.markReady(client, channel, snapshot.seq);
  }

  drop(client: StreamClient): void {
    this.hub.drop(client);
  }
}

export class StreamError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
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

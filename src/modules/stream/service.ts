import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../platform/db/database.js';
import type { NotificationsService } from '../notifications/service.js';
import type { DiscussionEvents } from '../social/discussion-events.js';
import type { TradingReads } from '../trading/reads.js';
import type { TradingService } from '../trading/service.js';
import { StreamFanOut } from './fan-out.js';
import type { StreamClient, StreamHub } from './hub.js';
import { StreamNotices } from './notices.js';
import type { StreamRepository } from './repository.js';
import { type StreamWindow, type WindowChannel, windowChannel } from './window.js';

/**
 * Live market data. Every change to a book is announced with NOTIFY inside its own transaction (notices.ts), so
 * PostgreSQL delivers it to every instance exactly when (and only if) it commits, in commit order; each instance
 * then fans it out to its WebSocket subscribers (fan-out.ts). Here: the clients' subscriptions.
 */
export class StreamService {
  private reads: TradingReads | null = null;
  private readonly notices: StreamNotices;
  private readonly fanOut: StreamFanOut;

  constructor(
    private readonly database: Database,
    private readonly stream: StreamRepository,
    private readonly hub: StreamHub,
    log: FastifyBaseLogger,
    readonly window: StreamWindow,
  ) {
    this.notices = new StreamNotices(stream);
    this.fanOut = new StreamFanOut(database, stream, hub, log, (optionId) => this.snapshot(optionId));
  }

  /** Announces book changes and users' order events from inside the trading transactions. */
  attach(trading: TradingService, reads: TradingReads): void {
    this.reads = reads;
    this.notices.attach(trading);
  }

  /** Announces each change to a market's discussion (posts, likes, comments, removals) on its event channel. */
  attachDiscussion(events: DiscussionEvents): void {
    this.notices.attachDiscussion(events);
  }

  /** Sends each new feed item to its user's channel, from the transaction that wrote it. */
  attachNotifications(notifications: NotificationsService): void {
    this.notices.attachNotifications(notifications);
  }

  /** Listens for every instance's notices, and fans them out to this instance's subscribers. */
  start(): Promise<void> {
    return this.fanOut.start();
  }

  stop(): Promise<void> {
    return this.fanOut.stop();
  }

  /** The YES ladder of an option with house depth, at a book version: the same read as GET /api/orderbook. */
  async snapshot(optionId: number) {
    const found = await this.reads?.book(optionId);
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

  /**
   * Subscribes a client; a book channel starts with a snapshot, then deltas. With `lastSeq`, the last seq the
   * client holds of a book or trades channel, it resumes: the messages it missed, or a gap and a fresh start.
   */
  async subscribe(client: StreamClient, channel: string, lastSeq: number | null = null): Promise<void> {
    const kept = windowChannel(channel);
    if (lastSeq !== null && kept) return this.resume(client, kept, lastSeq);
    if (lastSeq !== null) {
      const reason = 'this channel keeps no window: reload what you hold over the REST API';
      client.send({ type: 'gap', channel, lastSeq, oldestSeq: null, reason });
    }
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

  /**
   * Resumes a book or trades channel after `lastSeq`: `resumed` and every message missed since, read from the shared
   * window while live messages wait; or, when they are no longer all kept, `gap`, then a snapshot (book) or
   * `subscribed` (trades: reload the tape over the REST API).
   */
  private async resume(client: StreamClient, channel: WindowChannel, lastSeq: number): Promise<void> {
    this.hub.add(client, channel.name, false);
    try {
      const answer = await this.window.after(channel, lastSeq, this.window.limits.messages);
      if (answer.kind === 'unknown') throw new StreamError('NOT_FOUND', 'Option not found');
      if (answer.kind === 'messages') {
        const { seq, messages } = answer;
        client.send({ type: 'resumed', channel: channel.name, lastSeq, seq, replayed: messages.length });
        for (const message of messages) client.send(message);
        this.hub.markReady(client, channel.name, seq);
        return;
      }
      const { oldestSeq, reason } = answer;
      client.send({ type: 'gap', channel: channel.name, lastSeq, oldestSeq, reason });
      if (channel.kind === 'book') return await this.sendSnapshot(client, channel.name, channel.optionId);
      client.send({ type: 'subscribed', channel: channel.name });
      this.hub.markReady(client, channel.name, answer.version);
    } catch (error) {
      this.hub.remove(client, channel.name);
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

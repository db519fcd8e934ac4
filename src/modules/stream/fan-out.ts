import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../platform/db/database.js';
import { CATALOGUE_CHANNEL } from '../markets/repository.js';
import type { DiscussionChange } from '../social/discussion-events.js';
import type { StreamClient, StreamHub } from './hub.js';
import {
  BOOK_CHANNEL,
  type BookNotice,
  DISCUSSION_CHANNEL,
  USER_CHANNEL,
  type UserNotice,
} from './notices.js';
import type { StreamRepository } from './repository.js';

/** A fresh snapshot that cannot be read is tried again this often, this many times (about 10 s in all). */
const SNAPSHOT_RETRY_MS = 500;
const SNAPSHOT_RETRIES = 20;

/**
 * The listening side of the stream: each instance hears every committed change's notice (notices.ts), in commit
 * order, and fans it out to its WebSocket subscribers; when a listening connection drops, they are told.
 */
export class StreamFanOut {
  private stopListening: (() => Promise<void>)[] = [];

  constructor(
    private readonly database: Database,
    private readonly stream: StreamRepository,
    private readonly hub: StreamHub,
    private readonly log: FastifyBaseLogger,
    /** An option's book at a version, as a `snapshot` message carries it (null: no such option). */
    private readonly snapshot: (optionId: number) => Promise<{ seq: number } | null>,
  ) {}

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
      for (const conversion of notice.conversions ?? [])
        this.hub.publish(channel, { type: 'conversion', channel: 'user', conversion });
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
}

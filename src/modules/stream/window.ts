import type { Database } from '../../platform/db/database.js';
import { NotFoundError, OutsideStreamWindowError, ValidationError } from '../../platform/errors.js';
import type { StreamRepository, WindowRead } from './repository.js';
import type { WindowMessage } from './schemas.js';

/** A book notice as the window keeps it (written by the stream service, so trusted). */
interface KeptNotice {
  levels?: Extract<WindowMessage, { type: 'delta' }>['levels'];
  fills?: Extract<WindowMessage, { type: 'trades' }>['trades'];
}

/** How much of each option's book history the stream keeps for clients that reconnect. */
export interface WindowLimits {
  /** The last changes of each option kept. */
  messages: number;
  /** The longest a change is kept. */
  seconds: number;
}

/** The channels whose messages are kept: an option's book and its trades, both numbered by the book version. */
export type WindowChannel = { kind: 'book' | 'trades'; optionId: number; name: string };

/**
 * What the window has after a seq: the messages, oldest first (`seq` is the last of them, or the seq asked for when
 * nothing was missed), or a gap when they are no longer all kept, or nothing for an unknown option.
 */
export type WindowAnswer =
  | { kind: 'messages'; version: number; seq: number; messages: WindowMessage[]; complete: boolean }
  | { kind: 'gap'; version: number; oldestSeq: number | null; reason: string }
  | { kind: 'unknown' };

/**
 * The window of recent book changes every instance shares (a table written in the transaction of each change), so
 * a client that reconnects, to this instance or another, receives exactly the messages it missed: the seq of a book
 * message is its book version, the same on every instance.
 */
export class StreamWindow {
  constructor(
    private readonly database: Database,
    private readonly stream: StreamRepository,
    readonly limits: WindowLimits,
  ) {}

  /** The channel's messages after `afterSeq`, at most `limit` changes of the book read. */
  async after(channel: WindowChannel, afterSeq: number, limit: number): Promise<WindowAnswer> {
    const read = await this.stream.windowAfter(this.database.db, channel.optionId, afterSeq, limit);
    if (read.version === null) return { kind: 'unknown' };
    const gap = this.gapReason(read, afterSeq);
    if (gap) {
      const oldestSeq = read.entries[0]?.seq ?? null;
      return { kind: 'gap', version: read.version, oldestSeq, reason: gap };
    }
    const last = read.entries.at(-1)?.seq ?? afterSeq;
    const messages: WindowMessage[] = [];
    for (const entry of read.entries) {
      if (channel.kind === 'trades' && !entry.traded) continue;
      const notice = JSON.parse(entry.message) as KeptNotice;
      messages.push(
        channel.kind === 'book'
          ? { type: 'delta', channel: channel.name, seq: entry.seq, levels: notice.levels ?? [] }
          : { type: 'trades', channel: channel.name, seq: entry.seq, trades: notice.fills ?? [] },
      );
    }
    return { kind: 'messages', version: read.version, seq: last, messages, complete: last >= read.version };
  }

  /**
   * The messages of a book or trades channel from `fromSeq` on, as the stream sent them, for GET
   * /api/stream/replay: at most `limit` changes of the book a page, `nextFromSeq` the next page's start.
   */
  async replay(name: string, fromSeq: number, limit: number) {
    const channel = windowChannel(name);
    if (!channel) {
      const message = 'channel must be book:<optionId> or trades:<optionId>';
      throw new ValidationError(message, [{ field: 'channel', message }]);
    }
    const answer = await this.after(channel, fromSeq - 1, limit);
    if (answer.kind === 'unknown') throw new NotFoundError('Option');
    if (answer.kind === 'gap') {
      if (fromSeq - 1 > answer.version) {
        const message = `must be at most ${answer.version + 1}, the next seq of this book`;
        throw new ValidationError(`fromSeq ${message}`, [{ field: 'fromSeq', message }]);
      }
      throw new OutsideStreamWindowError({ fromSeq, latestSeq: answer.version });
    }
    return {
      channel: name,
      fromSeq,
      latestSeq: answer.version,
      messages: answer.messages,
      nextFromSeq: answer.complete ? null : answer.seq + 1,
    };
  }

  /** Why the messages after `afterSeq` cannot all be given, or null when they can. */
  private gapReason({ version, entries }: WindowRead, afterSeq: number): string | null {
    if (version === null || afterSeq === version) return null;
    if (afterSeq > version) return `seq ${afterSeq} is ahead of the book, which is at ${version}`;
    if (version - afterSeq > this.limits.messages)
      return `${version - afterSeq} changes since seq ${afterSeq}; the window keeps the last ${this.limits.messages}`;
    const first = entries[0];
    if (!first || first.seq !== afterSeq + 1) return `the changes after seq ${afterSeq} are no longer kept`;
    if (first.createdAt.getTime() < Date.now() - this.limits.seconds * 1000)
      return `the changes after seq ${afterSeq} are older than the window's ${this.limits.seconds} s`;
    for (let i = 1; i < entries.length; i++) {
      if (entries[i]?.seq !== afterSeq + 1 + i)
        return `the changes after seq ${afterSeq} are no longer all kept`;
    }
    return null;
  }

  /** Forgets what is beyond the limits; every instance runs it, the database keeps it consistent. */
  prune(): Promise<number> {
    return this.stream.pruneWindow(this.database.db, this.limits.messages, this.limits.seconds);
  }
}

/** The option a window channel name (`book:<id>`, `trades:<id>`) names, or null for any other channel. */
export function windowChannel(name: string): WindowChannel | null {
  const match = /^(book|trades):([1-9]\d{0,15})$/.exec(name);
  if (!match) return null;
  return { kind: match[1] as 'book' | 'trades', optionId: Number(match[2]), name };
}

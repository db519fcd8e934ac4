import WebSocket from 'ws';

export interface Level {
  side: 'bid' | 'ask';
  priceCents: number;
  quantity: number;
  orders: number;
  houseQuantity: number;
}

const keyOf = (level: { side: string; priceCents: number }) => `${level.side}:${level.priceCents}`;

/** A book's levels in one order, for comparing. */
export function sortedLevels(levels: Iterable<Level>): Level[] {
  return [...levels]
    .filter((level) => level.quantity > 0)
    .map(({ side, priceCents, quantity, orders, houseQuantity }) => ({
      side,
      priceCents,
      quantity,
      orders,
      houseQuantity,
    }))
    .sort((x, y) => keyOf(x).localeCompare(keyOf(y)));
}

/**
 * A stream client that follows the protocol: a `snapshot` replaces its book, a `delta` updates it, a gap in `seq`
 * makes it ask for a resync, and a `resync` from the server means a fresh snapshot is on its way.
 */
export class BookFollower {
  readonly books = new Map<string, { seq: number; levels: Map<string, Level> }>();
  snapshots = 0;
  resyncNotices = 0;
  gaps = 0;
  closed = false;

  private constructor(private readonly socket: WebSocket) {}

  static async open(url: string, channels: string[]): Promise<BookFollower> {
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const follower = new BookFollower(socket);
    socket.on('message', (raw) => follower.receive(JSON.parse(String(raw)) as Record<string, unknown>));
    socket.on('close', () => {
      follower.closed = true;
    });
    socket.on('error', () => {});
    for (const channel of channels) socket.send(JSON.stringify({ op: 'subscribe', channel }));
    return follower;
  }

  private receive(message: Record<string, unknown>): void {
    const channel = String(message.channel);
    if (message.type === 'snapshot') {
      this.snapshots += 1;
      const levels = [...(message.bids as Level[]), ...(message.asks as Level[])];
      this.books.set(channel, {
        seq: message.seq as number,
        levels: new Map(levels.map((l) => [keyOf(l), l])),
      });
    } else if (message.type === 'delta') {
      const book = this.books.get(channel);
      if (!book) return;
      if (message.seq !== book.seq + 1) {
        this.gaps += 1;
        this.socket.send(JSON.stringify({ op: 'resync', channel }));
      }
      book.seq = message.seq as number;
      for (const level of message.levels as Level[]) {
        if (level.quantity > 0) book.levels.set(keyOf(level), level);
        else book.levels.delete(keyOf(level));
      }
    } else if (message.type === 'resync') {
      this.resyncNotices += 1;
    } else if (message.type === 'error' && channel.startsWith('book:')) {
      // A subscription the server could not serve (the database out of reach): subscribe again.
      setTimeout(() => this.socket.send(JSON.stringify({ op: 'subscribe', channel })), 500).unref();
    }
  }

  close(): void {
    this.socket.close();
  }
}

/** One fresh snapshot of a book, from a new subscription. */
export async function freshSnapshot(url: string, channel: string): Promise<{ seq: number; levels: Level[] }> {
  const socket = new WebSocket(url);
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no snapshot of ${channel} within 5 s`)), 5_000);
      socket.once('error', reject);
      socket.once('open', () => socket.send(JSON.stringify({ op: 'subscribe', channel })));
      socket.on('message', (raw) => {
        const message = JSON.parse(String(raw)) as Record<string, unknown>;
        if (message.type !== 'snapshot') return;
        clearTimeout(timer);
        resolve({
          seq: message.seq as number,
          levels: sortedLevels([...(message.bids as Level[]), ...(message.asks as Level[])]),
        });
      });
    });
  } finally {
    socket.close();
  }
}

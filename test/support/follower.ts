import WebSocket from 'ws';

/**
 * A plain WebSocket client following option books as a bot would: a snapshot, then deltas in `seq` order; and the
 * helpers that compare what it holds with a fresh snapshot and GET /api/orderbook.
 */

export interface Level {
  side: 'bid' | 'ask';
  priceCents: number;
  quantity: number;
  orders: number;
  houseQuantity: number;
}

export type Book = Map<string, Level>;

export const keyOf = (level: { side: string; priceCents: number }) => `${level.side}:${level.priceCents}`;

export function bookOf(levels: Level[]): Book {
  return new Map(levels.filter((l) => l.quantity > 0).map((l) => [keyOf(l), l]));
}

export function sorted(book: Book): Level[] {
  return [...book.values()]
    .map(({ side, priceCents, quantity, orders, houseQuantity }) => ({
      side,
      priceCents,
      quantity,
      orders,
      houseQuantity,
    }))
    .sort((x, y) => keyOf(x).localeCompare(keyOf(y)));
}

async function connect(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return socket;
}

/**
 * A plain WebSocket client following one option's book: snapshot, then deltas in `seq` order. Dropped, it connects
 * again (to any instance) and resumes from the last seq it holds.
 */
export class Follower {
  book: Book = new Map();
  seq = -1;
  gaps = 0;
  /** Reconnections answered with the missed messages, and how many messages they replayed in all. */
  resumed = 0;
  replayed = 0;
  /** False from a connection until its answer (the snapshot, or resumed) has come. */
  settled = true;
  /** Reconnections answered with a gap (then a snapshot): the seq it held, and the snapshot's. */
  readonly restarts: { lastSeq: number; snapshotSeq: number | null }[] = [];
  private constructor(
    private socket: WebSocket,
    readonly channel: string,
  ) {
    this.listen();
  }

  static async open(url: string, channel: string): Promise<Follower> {
    const follower = new Follower(await connect(url), channel);
    follower.settled = false;
    follower.socket.send(JSON.stringify({ op: 'subscribe', channel }));
    return follower;
  }

  /** Drops the connection at once, with no goodbye, as a failing network or instance does. */
  drop(): void {
    this.socket.terminate();
  }

  /** Connects to `url` and subscribes again with the last seq it holds. */
  async resume(url: string): Promise<void> {
    this.settled = false;
    this.socket = await connect(url);
    this.listen();
    const lastSeq = this.seq >= 0 ? { lastSeq: this.seq } : {};
    this.socket.send(JSON.stringify({ op: 'subscribe', channel: this.channel, ...lastSeq }));
  }

  private listen(): void {
    const socket = this.socket;
    socket.on('message', (raw) => {
      if (socket === this.socket) this.receive(JSON.parse(String(raw)) as Record<string, unknown>);
    });
  }

  private receive(message: Record<string, unknown>): void {
    if (message.type === 'resumed' || message.type === 'snapshot') this.settled = true;
    if (message.type === 'resumed') {
      this.resumed += 1;
      this.replayed += message.replayed as number;
    }
    if (message.type === 'gap') this.restarts.push({ lastSeq: message.lastSeq as number, snapshotSeq: null });
    else if (message.type === 'snapshot') {
      const restart = this.restarts.at(-1);
      if (restart && restart.snapshotSeq === null) restart.snapshotSeq = message.seq as number;
      this.book = bookOf([...(message.bids as Level[]), ...(message.asks as Level[])]);
      this.seq = message.seq as number;
    } else if (message.type === 'delta') {
      if (message.seq !== this.seq + 1) this.gaps += 1;
      this.seq = message.seq as number;
      for (const level of message.levels as Level[]) {
        if (level.quantity > 0) this.book.set(keyOf(level), level);
        else this.book.delete(keyOf(level));
      }
    }
  }

  close(): void {
    this.socket.close();
  }
}

/** One fresh snapshot of the option's book, from a new subscription. */
export async function freshSnapshot(url: string, channel: string): Promise<{ seq: number; levels: Level[] }> {
  const socket = new WebSocket(url);
  try {
    return await new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.once('open', () => socket.send(JSON.stringify({ op: 'subscribe', channel })));
      socket.on('message', (raw) => {
        const message = JSON.parse(String(raw)) as Record<string, unknown>;
        if (message.type === 'snapshot')
          resolve({
            seq: message.seq as number,
            levels: sorted(bookOf([...(message.bids as Level[]), ...(message.asks as Level[])])),
          });
      });
    });
  } finally {
    socket.close();
  }
}

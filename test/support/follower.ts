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

/** A plain WebSocket client following one option's book: snapshot, then deltas in `seq` order. */
export class Follower {
  book: Book = new Map();
  seq = -1;
  gaps = 0;
  private constructor(private readonly socket: WebSocket) {}

  static async open(url: string, channel: string): Promise<Follower> {
    const socket = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const follower = new Follower(socket);
    socket.on('message', (raw) => follower.receive(JSON.parse(String(raw)) as Record<string, unknown>));
    socket.send(JSON.stringify({ op: 'subscribe', channel }));
    return follower;
  }

  private receive(message: Record<string, unknown>): void {
    if (message.type === 'snapshot') {
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

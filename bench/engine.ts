import { OrderBook as PeerBook, Side as PeerSide } from 'nodejs-order-book';
import { matchOrder } from '../src/exchange/matching.js';
import { OrderBook, toLadder } from '../src/exchange/order-book.js';

/**
 * The matching core against the `nodejs-order-book` package on the same stream of limit orders:
 * buys and sells of one contract at prices 40..60 and sizes 1..10, so that about half of them trade.
 */
interface Order {
  id: number;
  buy: boolean;
  price: number;
  size: number;
}

function stream(count: number, seed = 7): Order[] {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    buy: next() < 0.5,
    price: 40 + Math.floor(next() * 21),
    size: 1 + Math.floor(next() * 10),
  }));
}

function runOurs(orders: Order[]): number {
  const book = new OrderBook();
  const started = process.hrtime.bigint();
  for (const o of orders) {
    const side = 'YES';
    const action = o.buy ? 'BUY' : 'SELL';
    // Distinct users, so self-trade prevention never changes the outcome versus the peer.
    const match = matchOrder(book, null, {
      id: o.id,
      userId: o.id,
      side,
      action,
      limitPrice: o.price,
      quantity: o.size,
    });
    if (match.remaining > 0) {
      book.add({
        id: o.id,
        userId: o.id,
        side,
        action,
        ...toLadder(side, action, o.price),
        remaining: match.remaining,
      });
    }
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

function runPeer(orders: Order[]): number {
  const book = new PeerBook();
  const started = process.hrtime.bigint();
  for (const o of orders) {
    book.limit({
      id: String(o.id),
      side: o.buy ? PeerSide.BUY : PeerSide.SELL,
      size: o.size,
      price: o.price,
    });
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

export interface EngineResult {
  orders: number;
  oursOrdersPerSecond: number;
  peerOrdersPerSecond: number;
  ratio: number;
}

/** Best of several rounds for each, after a warm-up, in the same process and run. */
export function benchEngine(count = 300_000, rounds = 5): EngineResult {
  const orders = stream(count);
  runOurs(orders.slice(0, 20_000));
  runPeer(orders.slice(0, 20_000));
  let ours = Number.POSITIVE_INFINITY;
  let peer = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    ours = Math.min(ours, runOurs(orders));
    peer = Math.min(peer, runPeer(orders));
  }
  return {
    orders: count,
    oursOrdersPerSecond: Math.round(count / ours),
    peerOrdersPerSecond: Math.round(count / peer),
    ratio: Math.round((peer / ours) * 100) / 100,
  };
}

import { OrderBook as PeerBook, Side as PeerSide } from 'nodejs-order-book';
import type { BookState, Holdings } from '../src/exchange/decision.js';
import type { AmmState } from '../src/exchange/lmsr.js';

/**
 * The core as production runs it: the JavaScript `npm start` runs (dist/, built by bench/run.ts), not TypeScript
 * compiled on the fly (whose module wrappers put a getter in front of every imported constant).
 */
const { decide } = (await import(
  new URL('../dist/exchange/decision.js', import.meta.url).href
)) as typeof import('../src/exchange/decision.js');
const { positionKey } = (await import(
  new URL('../dist/exchange/execution.js', import.meta.url).href
)) as typeof import('../src/exchange/execution.js');
const { matchOrder } = (await import(
  new URL('../dist/exchange/matching.js', import.meta.url).href
)) as typeof import('../src/exchange/matching.js');
const { OrderBook, toLadder } = (await import(
  new URL('../dist/exchange/order-book.js', import.meta.url).href
)) as typeof import('../src/exchange/order-book.js');
const { House } = (await import(
  new URL('../dist/exchange/house.js', import.meta.url).href
)) as typeof import('../src/exchange/house.js');
const { EMPTY_POSITION } = (await import(
  new URL('../dist/exchange/positions.js', import.meta.url).href
)) as typeof import('../src/exchange/positions.js');

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

/**
 * The whole decision (src/exchange/decision.ts) as the order pipeline runs it: the same stream as BUY YES and
 * BUY NO limit orders of 1,000 traders against a book and a house maker, in batches of 32 (each batch one call,
 * as a busy option's batches are), with executions, ledger entries, position changes and the levels it leaves.
 */
function runDecision(orders: Order[]): number {
  const state: BookState = { book: new OrderBook(), orders: new Map() };
  const amm: AmmState = { liquidityCents: 100_000, offset: 0, yesShares: 0, noShares: 0 };
  const books = new Map([[1, state]]);
  const house = House.ofOption(1, amm);
  const now = new Date();
  const started = process.hrtime.bigint();
  for (let at = 0; at < orders.length; at += 32) {
    const batch = orders.slice(at, at + 32);
    const holdings: Holdings = { funds: new Map(), positions: new Map() };
    for (const o of batch) {
      holdings.funds.set(o.id % 1000, 1_000_000_000);
      holdings.positions.set(positionKey(o.id % 1000, 1, 'YES'), EMPTY_POSITION);
    }
    decide(
      books,
      { closed: null, conversionsClosed: null, house, exclusive: null, feeBps: 0, now },
      holdings,
      batch.map((o) => ({
        type: 'place' as const,
        order: {
          id: o.id,
          optionId: 1,
          userId: o.id % 1000,
          kind: 'limit' as const,
          side: o.buy ? ('YES' as const) : ('NO' as const),
          action: 'BUY' as const,
          quantity: o.size,
          priceCents: o.buy ? o.price : 100 - o.price,
          timeInForce: 'GTC' as const,
          postOnly: false,
          expiresAt: null,
          clientOrderId: null,
          placedBy: null,
        },
      })),
    );
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

export interface EngineResult {
  orders: number;
  oursOrdersPerSecond: number;
  peerOrdersPerSecond: number;
  ratio: number;
  /** The whole decision with a house maker, in batches of 32. */
  decisionOrdersPerSecond: number;
}

/** Best of several rounds for each, after a warm-up, in the same process and run. */
export function benchEngine(count = 300_000, rounds = 5): EngineResult {
  const orders = stream(count);
  runOurs(orders.slice(0, 20_000));
  runPeer(orders.slice(0, 20_000));
  runDecision(orders.slice(0, 20_000));
  let ours = Number.POSITIVE_INFINITY;
  let peer = Number.POSITIVE_INFINITY;
  let decision = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    ours = Math.min(ours, runOurs(orders));
    peer = Math.min(peer, runPeer(orders));
    decision = Math.min(decision, runDecision(orders));
  }
  return {
    orders: count,
    oursOrdersPerSecond: Math.round(count / ours),
    peerOrdersPerSecond: Math.round(count / peer),
    ratio: Math.round((peer / ours) * 100) / 100,
    decisionOrdersPerSecond: Math.round(count / decision),
  };
}

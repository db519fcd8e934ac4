import {
  type Dict,
  ExchangeError,
  type Int,
  type PredictionOrder,
  type PredictionOrderBook,
  type PredictionTrade,
  type Str,
} from 'ccxt';
import type { OutcomeLabel } from './base.js';
import { PmxRest } from './rest.js';

const LABELS: OutcomeLabel[] = ['YES', 'NO'];

/** What the stream holds of one option's YES ladder: price → shares, and the book version it stands at. */
interface Ladder {
  seq: number;
  bids: Map<number, number>;
  asks: Map<number, number>;
  /** A gap was seen: deltas wait for the fresh snapshot asked for. */
  stale: boolean;
}

/** A client of the stream (CCXT's WsClient, as far as this class uses it). */
interface StreamClient {
  send(message: Dict): Promise<void>;
  resolve(value: unknown, messageHash: string): void;
  reject(error: Error, messageHash?: string): void;
}

/**
 * The exchange, with CCXT's `watch*` methods over its WebSocket stream (`/api/stream`) through CCXT's own
 * machinery (`watch`, `handleMessage`, the order book cache): `book:<optionId>` snapshots and deltas for
 * watchOrderBook (a gap in `seq` asks for a fresh snapshot), `trades:<optionId>` for watchTrades, and the `user`
 * channel (signed in with the key) for watchOrders.
 */
export default class pmx extends PmxRest {
  private readonly ladders = new Map<string, Ladder>();
  /** The seq of the last trades message of each option, to resume its tape after a reconnection. */
  private readonly tapeSeqs = new Map<string, number>();

  override describe() {
    return this.deepExtend(super.describe(), {
      has: { ws: true },
      options: { tradesLimit: 1_000 },
    });
  }

  /** Where a watch connects; Node's CCXT needs an agent of its own for a plain ws:// stream (a local service). */
  private async stream(privateChannel = false): Promise<string> {
    const url = this.streamUrl(privateChannel);
    if (url.startsWith('ws://')) await this.loadHttpProxyAgent();
    return url;
  }

  /** The outcome's book, kept from the option's snapshot and deltas; resolves on every change. */
  override async watchOrderBook(
    outcome: string,
    limit: Int = undefined,
    _params = {},
  ): Promise<PredictionOrderBook> {
    const { optionId, handle } = await this.resolveOutcome(outcome);
    const channel = `book:${optionId}`;
    // After a reconnection, the book held resumes from its seq: the stream sends the deltas missed meanwhile.
    const held = this.ladders.get(optionId);
    const book = await this.watch(
      await this.stream(),
      `orderbook::${handle}`,
      { op: 'subscribe', channel, ...(held && !held.stale ? { lastSeq: held.seq } : {}) },
      channel,
    );
    return book.limit(limit);
  }

  /** The option's executions as they happen, from the outcome's point of view (the new ones of each change). */
  override async watchTrades(outcome: string, since: Int = undefined, limit: Int = undefined, _params = {}) {
    const { optionId, handle } = await this.resolveOutcome(outcome);
    const channel = `trades:${optionId}`;
    const seen = this.tapeSeqs.get(optionId);
    const trades = await this.watch(
      await this.stream(),
      `trades::${handle}`,
      { op: 'subscribe', channel, ...(seen === undefined ? {} : { lastSeq: seen }) },
      channel,
    );
    return this.filterBySinceLimit(trades, since, limit, 'timestamp', true) as PredictionTrade[];
  }

  /** Your orders as they are placed, filled, cancelled or expire (all of them, or one outcome's). */
  override async watchOrders(
    outcome: Str = undefined,
    since: Int = undefined,
    limit: Int = undefined,
    _params = {},
  ) {
    this.checkRequiredCredentials();
    const hash = outcome === undefined ? 'orders' : `orders::${(await this.resolveOutcome(outcome)).handle}`;
    const orders = await this.watch(
      await this.stream(true),
      hash,
      { op: 'subscribe', channel: 'user' },
      'user',
    );
    return this.filterBySinceLimit(orders, since, limit, 'timestamp', true) as PredictionOrder[];
  }

  override handleMessage(client: StreamClient, message: Dict): void {
    switch (this.safeString(message, 'type')) {
      case 'snapshot':
      case 'delta':
        this.handleBook(client, message);
        return;
      case 'trades':
        this.handleTrades(client, message);
        return;
      case 'order':
        this.handleOrder(client, message);
        return;
      case 'resumed':
        this.handleResumed(client, message);
        return;
      case 'error':
        this.handleStreamError(client, message);
        return;
      default:
        // subscribed / unsubscribed acknowledgements, market and discussion notices, resync and gap notices (a
        // book's fresh snapshot follows its own), fills and notifications: nothing a watch method waits for.
        return;
    }
  }

  private handleBook(client: StreamClient, message: Dict): void {
    const channel = this.safeString(message, 'channel', '') as string;
    const optionId = channel.split(':')[1] as string;
    const seq = this.safeInteger(message, 'seq', 0) as number;
    let ladder = this.ladders.get(optionId);
    if (message.type === 'snapshot') {
      ladder = { seq, bids: new Map(), asks: new Map(), stale: false };
      this.ladders.set(optionId, ladder);
    } else if (!ladder || ladder.stale) {
      return;
    } else if (seq !== ladder.seq + 1) {
      ladder.stale = true;
      void client.send({ op: 'resync', channel });
      return;
    }
    ladder.seq = seq;
    const levels = message.type === 'snapshot' ? [...message.bids, ...message.asks] : message.levels;
    for (const level of levels as Dict[]) {
      const side = level.side === 'bid' ? ladder.bids : ladder.asks;
      if (level.quantity > 0) side.set(level.priceCents, level.quantity);
      else side.delete(level.priceCents);
    }
    for (const label of LABELS) this.publishBook(client, optionId, label, ladder);
  }

  /** A book resumed with nothing missed: the watch gets the book held (otherwise the missed deltas publish it). */
  private handleResumed(client: StreamClient, message: Dict): void {
    const [kind, optionId] = (this.safeString(message, 'channel', '') as string).split(':');
    const ladder = optionId === undefined ? undefined : this.ladders.get(optionId);
    if (kind !== 'book' || !ladder || optionId === undefined || this.safeInteger(message, 'replayed') !== 0)
      return;
    for (const label of LABELS) this.publishBook(client, optionId, label, ladder);
  }

  /** One outcome's book from the YES ladder: a NO bid at 1 − p is a YES ask at p. */
  private publishBook(client: StreamClient, optionId: string, label: OutcomeLabel, ladder: Ladder): void {
    const handle = this.outcomeHandle(optionId, label);
    const yes = label === 'YES';
    const side = (levels: Map<number, number>) =>
      [...levels].map(([price, quantity]) => [this.sidePrice(price, label), quantity]);
    const book = this.orderbooks[handle] ?? this.orderBook({});
    book.reset({
      bids: side(yes ? ladder.bids : ladder.asks),
      asks: side(yes ? ladder.asks : ladder.bids),
      nonce: ladder.seq,
      timestamp: this.milliseconds(),
      datetime: this.iso8601(this.milliseconds()),
      outcome: handle,
      outcomeId: this.outcomeIdOf(optionId, label),
    });
    this.orderbooks[handle] = book;
    client.resolve(book, `orderbook::${handle}`);
  }

  private handleTrades(client: StreamClient, message: Dict): void {
    const optionId = (this.safeString(message, 'channel', '') as string).split(':')[1] as string;
    this.tapeSeqs.set(optionId, this.safeInteger(message, 'seq', 0) as number);
    for (const label of LABELS) {
      const trades = this.safeList(message, 'trades', []).map((t: Dict) =>
        this.tapeTradeOf(t, optionId, label),
      );
      client.resolve(trades, `trades::${this.outcomeHandle(optionId, label)}`);
    }
  }

  private handleOrder(client: StreamClient, message: Dict): void {
    const order = this.parsePredictionOrder(this.safeDict(message, 'order', {}));
    client.resolve([order], 'orders');
    client.resolve([order], `orders::${order.outcome}`);
  }

  /** A refused subscription fails the watch waiting on it. */
  private handleStreamError(client: StreamClient, message: Dict): void {
    const channel = this.safeString(message, 'channel', '') as string;
    const error = new ExchangeError(`${this.id} ${this.json(message)}`);
    const [kind, optionId] = channel.split(':');
    if (kind === 'user') {
      client.reject(error, 'orders');
      return;
    }
    if (optionId === undefined) return;
    for (const label of LABELS) {
      const handle = this.outcomeHandle(optionId, label);
      client.reject(error, kind === 'book' ? `orderbook::${handle}` : `trades::${handle}`);
    }
  }
}

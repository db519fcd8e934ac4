import { Pool } from 'undici';
import WebSocket from 'ws';
import {
  createEvent,
  inBatches,
  json,
  percentile,
  registerAdmin,
  registerUsers,
  round1,
  sampleRss,
  startCluster,
} from './harness.js';

/**
 * Market-data latency: WebSocket subscribers on GET /api/stream, spread evenly over the server instances, each
 * subscribed to the `book:` and `trades:` channels of the four options of one event, while orders that fill
 * (BUYs at 99¢ against the house maker, alternately YES and NO) are placed over HTTP at a steady total rate,
 * spread over the options and alternately on each instance.
 *
 * Each option's orders are placed one after another, so its book version (`seq` in every book and trades
 * message) rises by exactly one per accepted order: the k-th accepted order on an option produced the messages
 * with seq s0 + k, where s0 is the version in the subscribers' first snapshot. For every (subscriber, message)
 * this gives the time from when that order was sent, from when its HTTP response arrived (0 when the message
 * came first), and, for trades, from the fill's own timestamp (`at`: when its transaction started on the
 * database) to the message's receipt.
 */
export interface Latency {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface StreamResult {
  instances: number;
  subscribers: number;
  connected: number;
  seconds: number;
  targetOrdersPerSecond: number;
  ordersPerSecond: number;
  orders: number;
  filledOrders: number;
  orderErrors: number;
  orderP50Ms: number;
  orderP99Ms: number;
  trades: {
    expected: number;
    received: number;
    unexpected: number;
    fromSend: Latency;
    fromResponse: Latency;
    fromFillTimestamp: Latency;
  };
  book: { expected: number; received: number; unexpected: number; fromSend: Latency };
  streamErrors: number;
  /** CPU used by this process (the subscribers and the order placer) during the run, as % of one core. */
  clientCpuPercent: number;
  maxRssMb: number[];
}

export interface StreamBenchOptions {
  databaseUrl: string;
  instances: number;
  subscribers: number;
  ordersPerSecond: number;
  seconds: number;
}

interface Sent {
  sentAt: number;
  respondedAt: number;
  filled: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function summary(values: number[]): Latency {
  values.sort((a, b) => a - b);
  return {
    p50Ms: round1(percentile(values, 50)),
    p99Ms: round1(percentile(values, 99)),
    maxMs: round1(values.at(-1) ?? 0),
  };
}

const OPTIONS = 4;

export async function benchStream(options: StreamBenchOptions): Promise<StreamResult> {
  const cluster = await startCluster(options.databaseUrl, options.instances);
  const sockets: WebSocket[] = [];
  const pools = cluster.urls.map((url) => new Pool(url, { connections: OPTIONS }));
  try {
    const first = pools[0] as Pool;
    const admin = await registerAdmin(first);
    const optionIds = await createEvent(first, admin, {
      title: 'Streamed market',
      category: 'cricket',
      options: Array.from({ length: OPTIONS }, (_, i) => ({
        label: `Outcome ${i + 1}`,
        liquidityCents: 100_000,
      })),
    });
    const indexOf = new Map(optionIds.map((id, i) => [id, i]));
    const traders = await registerUsers(pools, 20, 'streamer');

    // What every subscriber receives: one flat log, read once the run is over.
    const tradeOption: number[] = [];
    const tradeSeq: number[] = [];
    const tradeAt: number[] = [];
    const tradeFillAt: number[] = [];
    const bookOption: number[] = [];
    const bookSeq: number[] = [];
    const bookAt: number[] = [];
    const snapshots = optionIds.map(() => new Set<number>());
    let streamErrors = 0;
    let running = false;
    const optionOf = (channel: unknown) => indexOf.get(String(channel).split(':')[1] ?? '') ?? -1;

    const connect = (index: number) =>
      new Promise<void>((resolve, reject) => {
        const port = cluster.ports[index % cluster.ports.length] as number;
        const socket = new WebSocket(`ws://127.0.0.1:${port}/api/stream`);
        sockets.push(socket);
        let pending = 2 * OPTIONS;
        const timer = setTimeout(() => reject(new Error('subscription timed out')), 30_000);
        const ready = () => {
          if (--pending === 0) {
            clearTimeout(timer);
            resolve();
          }
        };
        socket.on('open', () => {
          for (const id of optionIds) {
            socket.send(JSON.stringify({ op: 'subscribe', channel: `book:${id}` }));
            socket.send(JSON.stringify({ op: 'subscribe', channel: `trades:${id}` }));
          }
        });
        socket.on('message', (data) => {
          const at = performance.now();
          const message = JSON.parse(String(data));
          switch (message.type) {
            case 'trades':
              tradeOption.push(optionOf(message.channel));
              tradeSeq.push(message.seq);
              tradeAt.push(at);
              tradeFillAt.push(Date.parse(message.trades?.[0]?.at ?? ''));
              break;
            case 'delta':
              bookOption.push(optionOf(message.channel));
              bookSeq.push(message.seq);
              bookAt.push(at);
              break;
            case 'snapshot':
              // During the run a snapshot stands in for a delta too big for one notice.
              if (running) {
                bookOption.push(optionOf(message.channel));
                bookSeq.push(message.seq);
                bookAt.push(at);
              } else {
                snapshots[optionOf(message.channel)]?.add(message.seq);
                ready();
              }
              break;
            case 'subscribed':
              ready();
              break;
            case 'error':
              streamErrors++;
              clearTimeout(timer);
              reject(new Error(`stream error: ${message.code} ${message.error}`));
              break;
          }
        });
        socket.on('error', (error) => {
          streamErrors++;
          clearTimeout(timer);
          reject(error);
        });
      });
    await inBatches(
      Array.from({ length: options.subscribers }, (_, i) => i),
      50,
      (i) => connect(i),
    );
    const connected = sockets.filter((s) => s.readyState === WebSocket.OPEN).length;
    const s0 = snapshots.map((seqs) => {
      if (seqs.size !== 1) throw new Error('subscribers started from different book versions');
      return [...seqs][0] as number;
    });

    running = true;
    const rss = sampleRss(cluster.pids);
    const ownCpu = process.cpuUsage();
    const sent = optionIds.map(() => new Map<number, Sent>());
    const orderLatencies: number[] = [];
    let orderErrors = 0;
    let orders = 0;
    // One driver per option, each placing its orders one after another at its share of the rate.
    const interval = (1000 * OPTIONS) / options.ordersPerSecond;
    const started = performance.now();
    const deadline = started + options.seconds * 1000;
    await Promise.all(
      optionIds.map(async (optionId, o) => {
        let next = started + (o * interval) / OPTIONS;
        let changes = 0;
        for (let k = 0; ; k++) {
          const wait = next - performance.now();
          if (wait > 0) await sleep(wait);
          if (performance.now() >= deadline) break;
          next = Math.max(next + interval, performance.now());
          const sentAt = performance.now();
          const res = await json(
            pools[(k + o) % pools.length] as Pool,
            'POST',
            '/api/limit-orders',
            traders[(k * OPTIONS + o) % traders.length] as string,
            {
              optionId,
              side: k % 2 === 0 ? 'YES' : 'NO',
              action: 'BUY',
              quantity: 1 + (k % 3),
              limitPriceCents: 99,
            },
          ).catch(() => ({ status: 0, body: null }));
          const respondedAt = performance.now();
          orderLatencies.push(respondedAt - sentAt);
          if (res.status === 201) {
            changes++;
            orders++;
            sent[o]?.set((s0[o] as number) + changes, {
              sentAt,
              respondedAt,
              filled: res.body.trades.length > 0,
            });
          } else orderErrors++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;

    const filledOrders = sent.reduce((n, map) => n + [...map.values()].filter((s) => s.filled).length, 0);
    const expectedTrades = connected * filledOrders;
    const expectedBook = connected * orders;
    // Wait for what is still on its way (at most 5 s).
    for (let i = 0; i < 100 && (tradeSeq.length < expectedTrades || bookSeq.length < expectedBook); i++)
      await sleep(50);
    const maxRssMb = rss.stop();
    const own = process.cpuUsage(ownCpu);
    // µs of CPU per ms of wall time, ÷ 10 = % of one core.
    const clientCpuPercent = Math.round((own.user + own.system) / (performance.now() - started) / 10);

    const fromSend: number[] = [];
    const fromResponse: number[] = [];
    const fromFill: number[] = [];
    let unexpectedTrades = 0;
    for (const [i, seq] of tradeSeq.entries()) {
      const order = sent[tradeOption[i] as number]?.get(seq);
      if (!order?.filled) {
        unexpectedTrades++;
        continue;
      }
      const at = tradeAt[i] as number;
      fromSend.push(at - order.sentAt);
      fromResponse.push(Math.max(0, at - order.respondedAt));
      const fillAt = tradeFillAt[i] as number;
      if (Number.isFinite(fillAt)) fromFill.push(performance.timeOrigin + at - fillAt);
    }
    const bookFromSend: number[] = [];
    let unexpectedBook = 0;
    for (const [i, seq] of bookSeq.entries()) {
      const order = sent[bookOption[i] as number]?.get(seq);
      if (!order) unexpectedBook++;
      else bookFromSend.push((bookAt[i] as number) - order.sentAt);
    }
    orderLatencies.sort((a, b) => a - b);
    return {
      instances: options.instances,
      subscribers: options.subscribers,
      connected,
      seconds: round1(seconds),
      targetOrdersPerSecond: options.ordersPerSecond,
      ordersPerSecond: round1(orders / seconds),
      orders,
      filledOrders,
      orderErrors,
      orderP50Ms: round1(percentile(orderLatencies, 50)),
      orderP99Ms: round1(percentile(orderLatencies, 99)),
      trades: {
        expected: expectedTrades,
        received: fromSend.length,
        unexpected: unexpectedTrades,
        fromSend: summary(fromSend),
        fromResponse: summary(fromResponse),
        fromFillTimestamp: summary(fromFill),
      },
      book: {
        expected: expectedBook,
        received: bookFromSend.length,
        unexpected: unexpectedBook,
        fromSend: summary(bookFromSend),
      },
      streamErrors,
      clientCpuPercent,
      maxRssMb,
    };
  } finally {
    for (const socket of sockets) socket.terminate();
    await Promise.all(pools.map((pool) => pool.close()));
    await cluster.stop();
  }
}

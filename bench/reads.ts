import autocannon from 'autocannon';
import { Pool } from 'undici';
import {
  cpuSeconds,
  createEvent,
  inBatches,
  json,
  lcg,
  percentile,
  registerAdmin,
  registerUsers,
  round1,
  sampleRss,
  startCluster,
} from './harness.js';

/**
 * Read throughput of the two busiest public reads, GET /api/events (the market list) and
 * GET /api/orderbook/{optionId}, on one server process over PostgreSQL with a realistic catalogue: a few dozen
 * open events of one to four options, a few hundred resting limit orders and some trades.
 *
 * The load comes from autocannon (keep-alive connections, HTTP pipelining, optionally worker threads), which
 * writes pre-encoded requests and counts responses without building objects for them; pipelining a few requests
 * per connection about halves its CPU per request on the list's large responses, which matters on a machine of
 * two cores. Its own CPU use and the server's are reported next to the figures, to show which was the limit.
 */
export interface ReadRun {
  path: string;
  seconds: number;
  requests: number;
  errors: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Mean response size, bytes. */
  responseBytes: number;
  /** CPU used by the server process and by this (load-generating) process, as % of one core. */
  serverCpuPercent: number;
  generatorCpuPercent: number;
  maxRssMb: number[];
}

export interface ReadsResult {
  generator: string;
  connections: number;
  pipelining: number;
  workers: number;
  events: number;
  options: number;
  restingOrders: number;
  trades: number;
  list: ReadRun;
  orderbook: ReadRun;
}

export interface ReadsBenchOptions {
  databaseUrl: string;
  seconds: number;
  connections: number;
  pipelining: number;
  workers: number;
}

const CATEGORIES = ['cricket', 'football', 'politics', 'economy', 'technology', 'entertainment'];
const EVENTS = 36;

async function seedCatalogue(url: string) {
  const pool = new Pool(url, { connections: 16 });
  try {
    const admin = await registerAdmin(pool);
    const random = lcg(11);
    const optionIds: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const count = 1 + (i % 4);
      const ids = await createEvent(pool, admin, {
        title: `Benchmark market ${i + 1}: will outcome ${i + 1} happen before the deadline?`,
        category: CATEGORIES[i % CATEGORIES.length] as string,
        description:
          'Resolves YES if the named outcome happens before the market closes, according to the resolution ' +
          'source. Resolves NO otherwise. '.repeat(1 + (i % 3)),
        featured: i % 9 === 0,
        options: Array.from({ length: count }, (_, j) => ({
          label: count === 1 ? 'Yes' : `Outcome ${String.fromCharCode(65 + j)}`,
          liquidityCents: 20_000 + Math.floor(random() * 80_000),
        })),
      });
      optionIds.push(...ids);
    }
    const tokens = await registerUsers([pool], 40, 'reader');
    // Resting orders away from the house quotes (YES bids at 5..35, YES asks at 65..95), and some that trade.
    let resting = 0;
    let trades = 0;
    const orders = Array.from({ length: 500 }, (_, i) => i);
    await inBatches(orders, 8, async (i) => {
      const crossing = i % 5 === 0;
      const res = await json(pool, 'POST', '/api/limit-orders', tokens[i % tokens.length] as string, {
        optionId: optionIds[Math.floor(random() * optionIds.length)],
        side: random() < 0.5 ? 'YES' : 'NO',
        action: 'BUY',
        quantity: 1 + Math.floor(random() * 20),
        limitPriceCents: crossing ? 70 + Math.floor(random() * 10) : 5 + Math.floor(random() * 31),
      });
      if (res.status !== 201) throw new Error(`seed order: ${res.status} ${JSON.stringify(res.body)}`);
      if (res.body.trades.length > 0) trades++;
      if (res.body.status === 'open' || res.body.status === 'partially_filled') resting++;
    });
    return { optionIds, resting, trades };
  } finally {
    await pool.close();
  }
}

/** Reads `paths` in rotation for `seconds` after a second of warm-up, as fast as the server answers. */
export async function load(
  url: string,
  paths: string[],
  seconds: number,
  options: Pick<ReadsBenchOptions, 'connections' | 'pipelining' | 'workers'>,
  pid: number,
  headers: Record<string, string> = {},
): Promise<ReadRun> {
  const run = async (duration: number, record: boolean) => {
    // Without worker threads, every response time is kept at full precision; with them, autocannon's own
    // histogram (whole milliseconds) is used.
    const latencies: number[] = [];
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        {
          url,
          connections: options.connections,
          pipelining: options.pipelining,
          duration,
          requests: paths.map((path) => ({ method: 'GET', path, headers })),
          ...(options.workers > 0 ? { workers: options.workers } : {}),
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      );
      if (record && options.workers === 0)
        instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
    });
    return { result, latencies };
  };

  // A second of warm-up (JIT, caches, connection pools), not counted.
  await run(1, false);
  const rss = sampleRss([pid]);
  const serverCpu = cpuSeconds(pid);
  const ownCpu = process.cpuUsage();
  const started = performance.now();
  const { result, latencies } = await run(seconds, true);
  const elapsed = (performance.now() - started) / 1000;
  const own = process.cpuUsage(ownCpu);
  const maxRssMb = rss.stop();
  latencies.sort((a, b) => a - b);
  const ok = result['2xx'];
  return {
    path:
      paths.length === 1 ? (paths[0] as string) : `${paths[0]?.replace(/\d+$/, '')}{${paths.length} options}`,
    seconds: round1(result.duration),
    requests: ok,
    // autocannon's errors include its timeouts.
    errors: result.errors + result.non2xx,
    requestsPerSecond: Math.round(ok / result.duration),
    p50Ms: round1(latencies.length ? percentile(latencies, 50) : result.latency.p50),
    p99Ms: round1(latencies.length ? percentile(latencies, 99) : result.latency.p99),
    responseBytes: Math.round(result.throughput.total / Math.max(1, result.requests.total)),
    serverCpuPercent: Math.round(((cpuSeconds(pid) - serverCpu) / elapsed) * 100),
    generatorCpuPercent: Math.round(((own.user + own.system) / 1e6 / elapsed) * 100),
    maxRssMb,
  };
}

export async function benchReads(options: ReadsBenchOptions): Promise<ReadsResult> {
  const cluster = await startCluster(options.databaseUrl, 1);
  try {
    const url = cluster.urls[0] as string;
    const pid = cluster.pids[0] as number;
    const catalogue = await seedCatalogue(url);
    const list = await load(url, ['/api/events'], options.seconds, options, pid);
    const orderbook = await load(
      url,
      catalogue.optionIds.map((id) => `/api/orderbook/${id}`),
      options.seconds,
      options,
      pid,
    );
    return {
      generator: `autocannon ${options.connections} connections × pipelining ${options.pipelining}${
        options.workers > 0
          ? `, ${options.workers} worker thread${options.workers > 1 ? 's' : ''}`
          : ', main thread'
      }`,
      connections: options.connections,
      pipelining: options.pipelining,
      workers: options.workers,
      events: EVENTS,
      options: catalogue.optionIds.length,
      restingOrders: catalogue.resting,
      trades: catalogue.trades,
      list,
      orderbook,
    };
  } finally {
    await cluster.stop();
  }
}

import { Pool } from 'undici';
import {
  type Cluster,
  cpuSeconds,
  createEvent,
  inBatches,
  lcg,
  percentile,
  postgresBackends,
  registerAdmin,
  registerUsers,
  round1,
  runAudit,
  sampleRss,
  startCluster,
} from './harness.js';

/**
 * Durable orders per second through HTTP on one hot option: real server processes on PostgreSQL (one, or
 * several on the same database with the load split evenly over them), many users each with their own session,
 * limit orders around the middle of the book (about half of them trade), sent one per request or in batches
 * (`POST /api/limit-orders/batch`, as market makers send them). Every order answered 201 is committed to the
 * database. The ledger audit runs on the database afterwards.
 */
export interface HttpResult {
  instances: number;
  users: number;
  concurrency: number;
  /** Orders per request: 1 for single orders, else the batch's size. */
  batchSize: number;
  requests: number;
  seconds: number;
  orders: number;
  errors: number;
  ordersPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  auditClean: boolean;
  /** Highest resident memory of each server process during the run, MB. */
  maxRssMb: number[];
  cpu: CpuPerOrder;
  /** Wall time of the pipeline's transactions per request they took, by step, µs (summed over the servers). */
  steps: Record<string, number>;
}

/** The pipeline's step counters of every server (`exchange_order_batch_*` in /metrics), summed. */
export async function readSteps(cluster: Cluster): Promise<Map<string, number>> {
  const totals = new Map<string, number>();
  for (const url of cluster.urls) {
    const text = await fetch(`${url}/metrics`).then((res) => res.text());
    for (const [, step, value] of text.matchAll(
      /^exchange_order_batch_step_seconds_total\{step="(\w+)"\} (\S+)$/gm,
    ))
      totals.set(step as string, (totals.get(step as string) ?? 0) + Number(value));
    for (const [name, metric] of [
      ['requests', 'exchange_order_batch_requests_total'],
      ['transactions', 'exchange_order_batch_transactions_total'],
      ['markets', 'exchange_order_batch_markets_total'],
    ] as const) {
      const value = new RegExp(`^${metric} (\\S+)$`, 'm').exec(text)?.[1];
      totals.set(name, (totals.get(name) ?? 0) + Number(value ?? 0));
    }
  }
  return totals;
}

/** µs of each step per request taken, between two readings. */
export function stepsPerRequest(
  before: Map<string, number>,
  after: Map<string, number>,
): Record<string, number> {
  const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
  const requests = Math.max(1, delta('requests'));
  const transactions = Math.max(1, delta('transactions'));
  const steps: Record<string, number> = {
    requestsPerTransaction: Math.round((10 * delta('requests')) / transactions) / 10,
    marketsPerTransaction: Math.round((10 * delta('markets')) / transactions) / 10,
  };
  for (const [step, seconds] of after) {
    if (!['requests', 'transactions', 'markets'].includes(step))
      steps[step] = Math.round(((seconds - (before.get(step) ?? 0)) * 1e6) / requests);
  }
  return steps;
}

/** CPU seconds of the servers, this process and the database's backends, from the start of the window to `stop`. */
export async function sampleCpu(cluster: Cluster) {
  const backends = () => postgresBackends(cluster.databaseUrl);
  const usage = (own: NodeJS.CpuUsage) => (own.user + own.system) / 1e6;
  const servers0 = cluster.pids.map(cpuSeconds);
  const own0 = process.cpuUsage();
  const pg0 = new Map((await backends()).map((pid) => [pid, cpuSeconds(pid)]));
  return {
    async stop(seconds: number, orders: number): Promise<CpuPerOrder> {
      const servers = cluster.pids.map((pid, i) => cpuSeconds(pid) - (servers0[i] as number));
      const generator = usage(process.cpuUsage(own0));
      let postgres = 0;
      for (const pid of await backends()) postgres += cpuSeconds(pid) - (pg0.get(pid) ?? 0);
      const perOrder = (s: number) => Math.round((s * 1e6) / Math.max(1, orders));
      const percent = (s: number) => Math.round((s / seconds) * 100);
      return {
        serverUs: servers.map(perOrder),
        generatorUs: perOrder(generator),
        postgresUs: perOrder(postgres),
        serverPercent: servers.map(percent),
        generatorPercent: percent(generator),
        postgresPercent: percent(postgres),
      };
    },
  };
}

export interface HttpBenchOptions {
  databaseUrl: string;
  users: number;
  concurrency: number;
  seconds: number;
  instances: number;
  /** Orders per request: 1 sends `POST /api/limit-orders`, more sends batches. */
  batchSize: number;
  /** Independent markets the orders are spread over at random (1: one hot option). */
  markets?: number;
}

/** CPU used during the measured window, per order placed: each server, the load generator, PostgreSQL. */
export interface CpuPerOrder {
  serverUs: number[];
  generatorUs: number;
  postgresUs: number;
  /** Share of one core each used during the window, %. */
  serverPercent: number[];
  generatorPercent: number;
  postgresPercent: number;
}

/**
 * Request bodies encoded once, before the run, so that the generator spends its CPU on sending: single orders, or
 * batches of `batchSize` of the same random orders.
 */
function encodedBodies(optionIds: string[], count: number, batchSize: number): Buffer[] {
  const random = lcg(7);
  const order = () => ({
    optionId: optionIds[Math.floor(random() * optionIds.length)],
    side: random() < 0.5 ? 'YES' : 'NO',
    action: 'BUY',
    quantity: 1 + Math.floor(random() * 5),
    limitPriceCents: 45 + Math.floor(random() * 11),
  });
  return Array.from({ length: count }, () =>
    Buffer.from(
      JSON.stringify(batchSize === 1 ? order() : { orders: Array.from({ length: batchSize }, order) }),
    ),
  );
}

/** The orders a response says were placed: 1 for a single order's 201, each result of status 201 of a batch. */
async function placedIn(
  statusCode: number,
  body: { text(): Promise<string>; dump(): Promise<void> },
  batch: boolean,
) {
  if (!batch) {
    await body.dump();
    return statusCode === 201 ? 1 : 0;
  }
  if (statusCode !== 200) {
    await body.dump();
    return 0;
  }
  // Counted in the text: the generator's CPU is not spent on parsing what it does not read.
  return (await body.text()).split('"status":201').length - 1;
}

/** What a window of order load did: orders answered 201, the others, and the latency per request. */
export interface OrderLoad {
  requests: number;
  seconds: number;
  orders: number;
  errors: number;
  ordersPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * Sends limit orders (one per request, or in batches) for `seconds` with `concurrency` requests in flight, spread
 * over the pools (one per server) and the users' tokens, on the options named, and measures them.
 */
export async function measureOrders(
  pools: Pool[],
  tokens: string[],
  optionIds: string[],
  options: { concurrency: number; seconds: number; batchSize: number },
): Promise<OrderLoad> {
  const batch = options.batchSize > 1;
  const bodies = encodedBodies(optionIds, batch ? 1024 : 8192, options.batchSize);
  const path = batch ? '/api/limit-orders/batch' : '/api/limit-orders';
  const headers = tokens.map((token) => ({
    'content-type': 'application/json',
    authorization: `Bearer ${token}`,
  }));
  const latencies: number[] = [];
  let orders = 0;
  let errors = 0;
  let sent = 0;
  let requests = 0;
  const deadline = Date.now() + options.seconds * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, worker) => {
      const pool = pools[worker % pools.length] as Pool;
      while (Date.now() < deadline) {
        const n = sent++;
        const t0 = performance.now();
        const placed = await pool
          .request({
            method: 'POST',
            path,
            headers: headers[n % headers.length] as Record<string, string>,
            body: bodies[n % bodies.length] as Buffer,
          })
          .then((res) => placedIn(res.statusCode, res.body, batch))
          .catch(() => 0);
        latencies.push(performance.now() - t0);
        requests++;
        orders += placed;
        errors += options.batchSize - placed;
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests,
    seconds: round1(seconds),
    orders,
    errors,
    ordersPerSecond: Math.round(orders / seconds),
    p50Ms: round1(percentile(latencies, 50)),
    p99Ms: round1(percentile(latencies, 99)),
  };
}

export async function benchHttp(options: HttpBenchOptions): Promise<HttpResult> {
  const cluster = await startCluster(options.databaseUrl, options.instances);
  const connections = Math.ceil(options.concurrency / options.instances);
  const pools = cluster.urls.map((url) => new Pool(url, { connections }));
  try {
    const first = pools[0] as Pool;

    const admin = await registerAdmin(first);
    const optionIds: string[] = [];
    await inBatches(
      Array.from({ length: options.markets ?? 1 }, (_, i) => i),
      8,
      async (i) => {
        const [optionId] = await createEvent(first, admin, {
          title: `Hot market ${i}`,
          category: 'cricket',
          options: [{ label: 'Hot', liquidityCents: 100_000 }],
        });
        optionIds.push(optionId as string);
      },
    );
    const tokens = await registerUsers(pools, options.users);

    const rss = sampleRss(cluster.pids);
    const cpu = await sampleCpu(cluster);
    const stepsBefore = await readSteps(cluster);
    const load = await measureOrders(pools, tokens, optionIds, options);
    const { seconds, orders } = load;
    const used = await cpu.stop(seconds, orders);
    const steps = stepsPerRequest(stepsBefore, await readSteps(cluster));
    const maxRssMb = rss.stop();
    const auditClean = await runAudit(cluster.databaseUrl);

    return {
      instances: options.instances,
      users: options.users,
      concurrency: options.concurrency,
      batchSize: options.batchSize,
      ...load,
      auditClean,
      maxRssMb,
      cpu: used,
      steps,
    };
  } finally {
    await Promise.all(pools.map((pool) => pool.close()));
    await cluster.stop();
  }
}

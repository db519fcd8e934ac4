import pg from 'pg';
import { Pool } from 'undici';
import {
  createEvent,
  inBatches,
  lcg,
  percentile,
  registerAdmin,
  registerUsers,
  round1,
  runAudit,
  sampleRss,
  startCluster,
} from './harness.js';
import { type CpuPerOrder, readSteps, sampleCpu, stepsPerRequest } from './http.js';

/**
 * Many makers on many markets, as liquidity on a prediction market runs: two server processes on one PostgreSQL,
 * `markets` independent markets and a few exclusive events, makers each in a loop that pulls their quotes (cancel-all,
 * or amends of some of them) and then quotes both sides of 10 random markets in one batch of 20, and takers sending
 * single limit (IOC) and market orders to random markets. The load is split evenly over the two servers.
 */
export interface MakersOptions {
  databaseUrl: string;
  seconds: number;
  markets: number;
  makers: number;
  takers: number;
}

export interface Latency {
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface MakersResult {
  instances: number;
  markets: number;
  exclusiveEvents: number;
  makers: number;
  takers: number;
  seconds: number;
  placed: number;
  placedPerSecond: number;
  cancelled: number;
  cancelsPerSecond: number;
  fills: number;
  fillsPerSecond: number;
  batch: Latency;
  cancelAll: Latency;
  amend: Latency;
  single: Latency;
  /** Every answer that was not a 2xx, by status and code (a batch's items included). */
  refusals: Record<string, number>;
  /** `deadlock detected` in the database while it ran (pg_stat_database.deadlocks). */
  deadlocks: number;
  cpu: CpuPerOrder;
  /** Wall time of the pipeline's transactions per request they took, by step, µs (summed over the servers). */
  steps: Record<string, number>;
  auditClean: boolean;
  maxRssMb: number[];
}

/** A world of markets: independent options, and the options of exclusive events (one market each). */
interface Markets {
  optionIds: string[];
  exclusiveEvents: number;
}

const EXCLUSIVE_EVENTS = 3;

async function createMarkets(pool: Pool, admin: string, count: number): Promise<Markets> {
  const optionIds: string[] = [];
  await inBatches(
    Array.from({ length: count }, (_, i) => i),
    8,
    async (i) => {
      const ids = await createEvent(pool, admin, {
        title: `Market ${i}`,
        category: 'economics',
        options: [{ label: 'Yes', liquidityCents: 50_000 }],
      });
      optionIds.push(...ids);
    },
  );
  for (let e = 0; e < EXCLUSIVE_EVENTS; e++) {
    const res = await fetchJson(pool, '/api/admin/events', admin, {
      title: `Who wins ${e}?`,
      category: 'cricket',
      exclusive: true,
      liquidityCents: 50_000,
      options: ['A', 'B', 'C', 'D'].map((label) => ({ label })),
      closesAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      open: true,
    });
    optionIds.push(...(res.options as { id: string }[]).map((option) => option.id));
  }
  return { optionIds, exclusiveEvents: EXCLUSIVE_EVENTS };
}

async function fetchJson(pool: Pool, path: string, token: string, body: unknown) {
  const res = await pool.request({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${path}: ${res.statusCode} ${text}`);
  return JSON.parse(text);
}

/** What the run saw: latencies per kind of request, counts, and every refusal. */
class Tally {
  readonly latencies = {
    batch: [] as number[],
    cancelAll: [] as number[],
    amend: [] as number[],
    single: [] as number[],
  };
  placed = 0;
  cancelled = 0;
  readonly refusals: Record<string, number> = {};

  refuse(status: number, code: string, count = 1): void {
    const key = `${status} ${code}`;
    this.refusals[key] = (this.refusals[key] ?? 0) + count;
  }

  latency(kind: keyof Tally['latencies']): Latency {
    const sorted = this.latencies[kind].sort((a, b) => a - b);
    return {
      count: sorted.length,
      p50Ms: round1(percentile(sorted, 50)),
      p99Ms: round1(percentile(sorted, 99)),
      maxMs: round1(sorted.at(-1) ?? 0),
    };
  }
}

/** Sends a request and counts what came of it; its parsed answer (null when it was not a 2xx). */
async function send(
  pool: Pool,
  tally: Tally,
  kind: keyof Tally['latencies'],
  request: { method: 'POST'; path: string; token: string; body: unknown },
): Promise<Record<string, unknown> | null> {
  const t0 = performance.now();
  const res = await pool
    .request({
      method: request.method,
      path: request.path,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${request.token}` },
      body: JSON.stringify(request.body),
    })
    .catch((error: Error) => ({ statusCode: 0, body: { text: async () => `{"code":"${error.name}"}` } }));
  const text = await res.body.text();
  tally.latencies[kind].push(performance.now() - t0);
  const body = text ? JSON.parse(text) : null;
  if (res.statusCode >= 300) {
    tally.refuse(res.statusCode, body?.code ?? 'none');
    return null;
  }
  return body;
}

/** A maker's loop: pull the quotes (cancel-all, or amend some of them), then quote both sides of 10 markets. */
async function maker(
  pool: Pool,
  token: string,
  markets: Markets,
  seed: number,
  deadline: number,
  tally: Tally,
): Promise<void> {
  const random = lcg(seed);
  let resting: string[] = [];
  for (let round = 0; Date.now() < deadline; round++) {
    if (resting.length > 0 && round % 3 === 2) {
      await Promise.all(
        resting.slice(0, 4).map((id) =>
          send(pool, tally, 'amend', {
            method: 'POST',
            path: `/api/limit-orders/${id}/amend`,
            token,
            body: { remainingQuantity: 1 },
          }),
        ),
      );
    } else if (resting.length > 0) {
      const answer = await send(pool, tally, 'cancelAll', {
        method: 'POST',
        path: '/api/limit-orders/cancel-all',
        token,
        body: {},
      });
      if (answer) tally.cancelled += Number(answer.cancelledCount ?? 0);
      resting = [];
    }
    const orders = quotes(markets, random);
    const answer = await send(pool, tally, 'batch', {
      method: 'POST',
      path: '/api/limit-orders/batch',
      token,
      body: { orders },
    });
    for (const result of (answer?.data as Record<string, unknown>[] | undefined) ?? []) {
      const order = result.order as { id: string; status: string } | undefined;
      if (result.status === 201 && order) {
        tally.placed += 1;
        if (order.status === 'open' || order.status === 'partially_filled') resting.push(order.id);
      } else tally.refuse(Number(result.status), String((result.error as { code?: string })?.code ?? 'none'));
    }
  }
}

/** Both sides of 10 random markets: a bid for YES and one for NO two cents apart (an ask for YES two above). */
function quotes(markets: Markets, random: () => number) {
  const orders = [];
  for (let i = 0; i < 10; i++) {
    const optionId = markets.optionIds[Math.floor(random() * markets.optionIds.length)] as string;
    const bid = 30 + Math.floor(random() * 30);
    const common = { optionId, action: 'BUY', quantity: 1 + Math.floor(random() * 5) };
    orders.push({ ...common, side: 'YES', limitPriceCents: bid });
    orders.push({ ...common, side: 'NO', limitPriceCents: 100 - bid - 2 });
  }
  return orders;
}

/** A taker's loop: single orders to random markets, limit orders that never rest (IOC) and market orders. */
async function taker(
  pool: Pool,
  token: string,
  markets: Markets,
  seed: number,
  deadline: number,
  tally: Tally,
) {
  const random = lcg(seed);
  while (Date.now() < deadline) {
    const optionId = markets.optionIds[Math.floor(random() * markets.optionIds.length)] as string;
    const side = random() < 0.5 ? 'YES' : 'NO';
    const market = random() < 0.3;
    const answer = await send(pool, tally, 'single', {
      method: 'POST',
      path: market ? '/api/trades' : '/api/limit-orders',
      token,
      body: market
        ? { optionId, side, action: 'BUY', quantity: 1 + Math.floor(random() * 3), priceCents: 99 }
        : {
            optionId,
            side,
            action: 'BUY',
            quantity: 1 + Math.floor(random() * 3),
            limitPriceCents: 40 + Math.floor(random() * 30),
            timeInForce: 'IOC',
          },
    });
    if (answer) tally.placed += 1;
  }
}

/** The database's deadlock count and the fills' high-water mark, read before and after the run. */
async function databaseCounters(databaseUrl: string): Promise<{ deadlocks: number; fills: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const name = new URL(databaseUrl).pathname.slice(1);
    const { rows } = await client.query<{ deadlocks: string; fills: string }>(
      `SELECT (SELECT deadlocks FROM pg_stat_database WHERE datname = $1) AS deadlocks,
        (SELECT count(*) FROM fills) AS fills`,
      [name],
    );
    return { deadlocks: Number(rows[0]?.deadlocks ?? 0), fills: Number(rows[0]?.fills ?? 0) };
  } finally {
    await client.end();
  }
}

export async function benchMakers(options: MakersOptions): Promise<MakersResult> {
  const cluster = await startCluster(options.databaseUrl, 2);
  const pools = cluster.urls.map((url) => new Pool(url, { connections: 64 }));
  try {
    const first = pools[0] as Pool;
    const admin = await registerAdmin(first);
    const markets = await createMarkets(first, admin, options.markets);
    const makers = await registerUsers(pools, options.makers, 'maker');
    const takers = await registerUsers(pools, options.takers, 'taker');
    const tally = new Tally();
    const before = await databaseCounters(cluster.databaseUrl);
    const rss = sampleRss(cluster.pids);
    const cpu = await sampleCpu(cluster);
    const stepsBefore = await readSteps(cluster);
    const started = Date.now();
    const deadline = started + options.seconds * 1000;
    const pool = (i: number) => pools[i % pools.length] as Pool;
    await Promise.all([
      ...makers.map((token, i) => maker(pool(i), token, markets, 1 + i, deadline, tally)),
      ...takers.map((token, i) => taker(pool(i), token, markets, 1000 + i, deadline, tally)),
    ]);
    const seconds = (Date.now() - started) / 1000;
    const used = await cpu.stop(seconds, tally.placed);
    const steps = stepsPerRequest(stepsBefore, await readSteps(cluster));
    const maxRssMb = rss.stop();
    const after = await databaseCounters(cluster.databaseUrl);
    const auditClean = await runAudit(cluster.databaseUrl);
    const fills = after.fills - before.fills;
    return {
      instances: 2,
      markets: options.markets,
      exclusiveEvents: markets.exclusiveEvents,
      makers: options.makers,
      takers: options.takers,
      seconds: round1(seconds),
      placed: tally.placed,
      placedPerSecond: Math.round(tally.placed / seconds),
      cancelled: tally.cancelled,
      cancelsPerSecond: Math.round(tally.cancelled / seconds),
      fills,
      fillsPerSecond: Math.round(fills / seconds),
      batch: tally.latency('batch'),
      cancelAll: tally.latency('cancelAll'),
      amend: tally.latency('amend'),
      single: tally.latency('single'),
      refusals: tally.refusals,
      deadlocks: after.deadlocks - before.deadlocks,
      cpu: used,
      steps,
      auditClean,
      maxRssMb,
    };
  } finally {
    await Promise.all(pools.map((p) => p.close()));
    await cluster.stop();
  }
}

import { execFileSync } from 'node:child_process';
import { Redis } from 'ioredis';
import pg from 'pg';
import { BookFollower, freshSnapshot, sortedLevels } from './lib/book-follower.js';
import {
  Api,
  createThrowawayDatabase,
  freePort,
  inParallel,
  type JsonResponse,
  openMarkets,
  randomOrder,
  runAudit,
  type ServerProcess,
  seededRandom,
  startServer,
  verdict,
  waitReady,
} from './lib/harness.js';
import { TcpProxy } from './lib/tcp-proxy.js';

/**
 * Faults of what the service depends on, made while it runs under load. Real server processes reach PostgreSQL and
 * Redis through TCP proxies this script owns, so the shared servers are never touched (except the PostgreSQL
 * restart, which is the real thing). For each fault, with orders, cancels and reads in flight and stream
 * subscribers following every book:
 *   - the processes stay alive;
 *   - clients get only 2xx, 4xx and 503 (with Retry-After), no 500, no reset, no request longer than the bound;
 *   - the service serves again (an order placed, /readyz 200) within 2 s of the fault's end;
 *   - every subscriber's book equals a fresh snapshot afterwards;
 * and in the end every acknowledged order is stored with its trades, no order refused for a busy option or a full
 * queue was written, and `npm run audit` passes. Exits 1 on any failure.
 *
 *   FAULT_DATABASE_URL  PostgreSQL server to create a throw-away database on (default the local test server)
 *   FAULT_REDIS_URL     Redis server (default redis://127.0.0.1:6379)
 *   FAULT_SHORT         the CI run: one instance, short phases, no restart (default false)
 *   FAULT_RESTART       restart PostgreSQL with pg_ctlcluster (default: when running as root and not short)
 *   FAULT_DOWN_MS       how long each lasting fault lasts (default 5000)
 *   FAULT_SEED          random seed (default the time)
 */

const adminUrl = process.env.FAULT_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = new URL(process.env.FAULT_REDIS_URL ?? 'redis://127.0.0.1:6379');
const short = process.env.FAULT_SHORT === 'true';
const restart =
  process.env.FAULT_RESTART === undefined
    ? !short && process.getuid?.() === 0
    : process.env.FAULT_RESTART === 'true';
const downMs = Number(process.env.FAULT_DOWN_MS ?? 5000);
const seed = Number(process.env.FAULT_SEED ?? Date.now() % 1_000_000);
const random = seededRandom(seed);
const instances = short ? 1 : 2;
const workers = short ? 8 : 16;
const steadyMs = short ? 800 : 2000;
const RECOVERY_LIMIT_MS = 2000;

/** The service's bounds in this run, and the longest a request may take with them. */
const TIMEOUTS = { acquire: 1000, statement: 2000, lock: 1000, idleInTransaction: 5000 };
const REQUEST_BOUND_MS = TIMEOUTS.statement + 1000 + TIMEOUTS.acquire + 1500;
const ADMIN = 'fault-admin@example.com';

interface Outcome {
  phase: string;
  path: string;
  status: number | 'reset';
  code?: string;
  ms: number;
  retryAfter: boolean;
}

interface Acknowledged {
  id: string;
  clientOrderId: string;
  tradeIds: string[];
}

interface Row {
  fault: string;
  requests: number;
  ok: number;
  rejected: number;
  unavailable: number;
  failed: number;
  slowestMs: number;
  recoveryMs: number | null;
  resynced: string;
  /** The codes of the 503s, with their counts. */
  codes: string;
}

const outcomes: Outcome[] = [];
const acknowledged: Acknowledged[] = [];
const refusedUnwritten: string[] = [];
const failures: string[] = [];
const rows: Row[] = [];
let phase = 'warm-up';
let paused: Promise<void> | null = null;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<number> {
  log(`fault test: ${instances} instance(s), ${workers} clients, faults of ${downMs} ms, seed ${seed}`);
  const database = await createThrowawayDatabase(adminUrl, 'fault');
  const target = new URL(adminUrl);
  const pgProxy = new TcpProxy(target.hostname, Number(target.port || 5432));
  const redisProxy = new TcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
  const viaProxy = new URL(database.url);
  viaProxy.host = `127.0.0.1:${await pgProxy.listen()}`;
  await redisProxy.listen();
  const keyPrefix = `fault:${seed}:${Date.now()}:`;
  const servers: ServerProcess[] = [];
  const followers: BookFollower[] = [];
  const redis = new Redis(redisUrl.toString(), { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  try {
    for (let i = 0; i < instances; i++) {
      const server = startServer(await freePort(), {
        DATABASE_URL: viaProxy.toString(),
        REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
        REDIS_KEY_PREFIX: keyPrefix,
        RATE_LIMIT_MAX: '1000000',
        ADMIN_EMAIL: ADMIN,
        JOBS_ENABLED: 'true',
        JOB_INTERVAL_MS: '500',
        DATABASE_ACQUIRE_TIMEOUT_MS: String(TIMEOUTS.acquire),
        DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUTS.statement),
        DATABASE_LOCK_TIMEOUT_MS: String(TIMEOUTS.lock),
        DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: String(TIMEOUTS.idleInTransaction),
      });
      servers.push(server);
    }
    for (const server of servers) await waitReady(server);
    const apis = servers.map((server) => new Api(server.port, workers + 4, 15_000));
    const { tokens, optionIds, probeToken, probeOption } = await prepare(apis[0] as Api);
    for (const server of servers) {
      followers.push(
        await BookFollower.open(
          `ws://127.0.0.1:${server.port}/api/stream`,
          [...optionIds, probeOption].map((id) => `book:${id}`),
        ),
      );
    }
    let stop = false;
    const load = runLoad(apis, tokens, optionIds, () => stop);
    await sleep(steadyMs);

    const direct = async <T>(use: (client: pg.Client) => Promise<T>): Promise<T> => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return await use(client);
      } finally {
        await client.end().catch(() => {});
      }
    };
    const lockedOption = optionIds[0] as string;
    /** `dropsListening`: the fault ends the listening connections, so every subscriber must get a fresh snapshot. */
    const faults: {
      name: string;
      make: () => Promise<void>;
      redisOnly?: boolean;
      dropsListening?: boolean;
    }[] = [
      { name: 'every PostgreSQL connection cut', make: async () => pgProxy.cutAll(), dropsListening: true },
      {
        name: `PostgreSQL refusing connections for ${downMs / 1000} s`,
        dropsListening: true,
        make: async () => {
          pgProxy.refuse();
          await sleep(downMs);
          pgProxy.pass();
        },
      },
      {
        name: `PostgreSQL connections stalled for ${downMs / 1000} s`,
        make: async () => {
          pgProxy.stall();
          await sleep(downMs);
          pgProxy.pass();
        },
      },
      {
        name: "pg_terminate_backend on the service's connections",
        dropsListening: true,
        make: () =>
          direct(async (client) => {
            await client.query(
              'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
            );
          }),
      },
      {
        name: `Redis unreachable for ${downMs / 1000} s`,
        redisOnly: true,
        make: async () => {
          redisProxy.refuse();
          await sleep(downMs);
          redisProxy.pass();
        },
      },
      {
        name: `an option row locked for ${(3 * TIMEOUTS.lock) / 1000} s (lock_timeout ${TIMEOUTS.lock / 1000} s)`,
        make: () =>
          direct(async (client) => {
            await client.query('BEGIN');
            await client.query('SELECT id FROM options WHERE id = $1 FOR UPDATE', [lockedOption]);
            await sleep(3 * TIMEOUTS.lock);
            await client.query('ROLLBACK');
          }),
      },
    ];
    if (!(await reachable(redis))) {
      log(`no Redis at ${redisUrl}: the Redis fault is left out`);
      faults.splice(
        faults.findIndex((fault) => fault.redisOnly),
        1,
      );
    }
    if (restart)
      faults.push({ name: 'PostgreSQL restarted (5 s down)', make: restartPostgres, dropsListening: true });

    for (const fault of faults) {
      phase = fault.name;
      const from = outcomes.length;
      const snapshotsBefore = followers.map((follower) => follower.snapshots);
      await fault.make();
      const recoveryMs = await recover(apis, probeToken, probeOption);
      const due = await dueOrder(apis[0] as Api, probeToken, probeOption, direct);
      const jobsBefore = await Promise.all(apis.map(jobRuns));
      await sleep(steadyMs);
      const jobsAfter = await Promise.all(apis.map(jobRuns));
      if (jobsAfter.some((runs, i) => runs <= (jobsBefore[i] as number)))
        failures.push(`${fault.name}: the background jobs did not run again after it`);
      if (!(await expiredSoon(due, direct)))
        failures.push(`${fault.name}: the expiry job did not expire an order that fell due after it`);
      if (
        fault.dropsListening &&
        followers.some((follower, i) => follower.snapshots <= (snapshotsBefore[i] ?? 0))
      )
        failures.push(
          `${fault.name}: a subscriber got no fresh snapshot after its instance's listening connection dropped`,
        );
      const resynced = await checkFollowers(apis, servers, followers, [...optionIds, probeOption]);
      for (const server of servers) {
        if (server.child.exitCode !== null || server.child.signalCode !== null)
          failures.push(`${fault.name}: a server process exited\n${server.output().slice(-2000)}`);
      }
      rows.push(summarise(fault.name, outcomes.slice(from), recoveryMs, resynced, fault.redisOnly === true));
      if (fault.redisOnly) await checkRedisCounters(apis[0] as Api, redis, keyPrefix, probeToken);
      if (fault.name.startsWith('an option row locked')) checkLockFault(outcomes.slice(from), lockedOption);
      if (fault.name.startsWith('PostgreSQL refusing')) {
        const notReady = outcomes.slice(from).filter((o) => o.path === '/readyz' && o.status === 503);
        if (notReady.length === 0) failures.push(`${fault.name}: /readyz never answered 503`);
      }
      log(`${fault.name}: ${JSON.stringify(rows[rows.length - 1])}`);
    }
    stop = true;
    await load;
    for (const api of apis) await api.close();
    for (const follower of followers) follower.close();
    for (const server of servers) {
      server.child.kill('SIGTERM');
      const exit = await server.exited;
      if (exit.code !== 0)
        failures.push(`a graceful stop exited ${exit.code}\n${server.output().slice(-2000)}`);
    }
    const found = await verify(database.url);
    const audit = await runAudit({ DATABASE_URL: database.url });
    if (audit.code !== 0) failures.push(`npm run audit failed:\n${audit.output}`);
    report(found, audit.code);
  } finally {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    redis.disconnect();
    await pgProxy.close();
    await redisProxy.close();
    await database.drop().catch((error) => log(`could not drop the database: ${error}`));
  }
  return verdict('fault test', failures, log);
}

async function reachable(redis: Redis): Promise<boolean> {
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  }
}

/** Stops the local PostgreSQL cluster for 5 s, and always starts it again. */
async function restartPostgres(): Promise<void> {
  const cluster = execFileSync('pg_lsclusters', ['-h'], { encoding: 'utf8' }).trim().split(/\s+/);
  const [version, name] = cluster;
  if (!version || !name) throw new Error('no PostgreSQL cluster found');
  try {
    execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, name, 'stop', '-m', 'fast']);
    await sleep(5000);
  } finally {
    execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, name, 'start']);
  }
}

/**
 * Traders, two markets of two options each for the load, and one option only the recovery probe trades, so that
 * what it measures is the service coming back, not the load's queues.
 */
async function prepare(
  api: Api,
): Promise<{ tokens: string[]; optionIds: string[]; probeToken: string; probeOption: string }> {
  const admin = await api.ok<{ token: string }>('POST', '/api/auth/register', {
    body: { email: ADMIN, password: 'fault admin password' },
  });
  const optionIds = await openMarkets(api, admin.token, 3, 'Fault market');
  const tokens: string[] = [];
  await inParallel(
    Array.from({ length: 16 }, (_, i) => i),
    4,
    async (i) => {
      const user = await api.ok<{ token: string }>('POST', '/api/auth/register', {
        body: { email: `fault-${i}@example.com`, password: 'fault trader password' },
      });
      tokens.push(user.token);
    },
  );
  const probe = await api.ok<{ token: string }>('POST', '/api/auth/register', {
    body: { email: 'fault-probe@example.com', password: 'fault probe password' },
  });
  const probeOption = optionIds.pop() as string;
  optionIds.pop();
  return { tokens, optionIds, probeToken: probe.token, probeOption };
}

let sequence = 0;

/** One request, recorded under the current phase; a network failure is recorded as a reset. */
async function send(
  api: Api,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<JsonResponse | null> {
  const at = phase;
  const started = performance.now();
  try {
    const response = await api.request(method, path, options);
    const code = (response.body as { code?: string } | null)?.code;
    outcomes.push({
      phase: at,
      path,
      status: response.status,
      ...(code ? { code } : {}),
      ms: response.ms,
      retryAfter: response.headers['retry-after'] !== undefined,
    });
    return response;
  } catch {
    outcomes.push({ phase: at, path, status: 'reset', ms: performance.now() - started, retryAfter: false });
    return null;
  }
}

/** An order through `send`: records what was acknowledged, and what was refused before anything was written. */
async function placeOrder(api: Api, token: string, path: string, body: Record<string, unknown>) {
  const response = await send(api, 'POST', path, { token, body });
  if (response?.status === 201) {
    const placed = response.body as { id: string; status: string; trades: { id: string }[] };
    acknowledged.push({
      id: placed.id,
      clientOrderId: body.clientOrderId as string,
      tradeIds: placed.trades.map((trade) => trade.id),
    });
  }
  const code = (response?.body as { code?: string } | undefined)?.code;
  if (response?.status === 503 && (code === 'OPTION_BUSY' || code === 'ORDER_QUEUE_FULL'))
    refusedUnwritten.push(body.clientOrderId as string);
  return response;
}

/** Orders, cancels and public reads from every worker, spread over the instances, until `done()`. */
async function runLoad(apis: Api[], tokens: string[], optionIds: string[], done: () => boolean) {
  const open = new Map<string, string[]>();
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      const api = apis[worker % apis.length] as Api;
      while (!done()) {
        if (paused) await paused;
        const token = tokens[Math.floor(random() * tokens.length)] as string;
        const optionId = optionIds[Math.floor(random() * optionIds.length)] as string;
        const roll = random();
        const mine = open.get(token) ?? [];
        if (roll < 0.15 && mine.length > 0) {
          const orderId = mine.splice(Math.floor(random() * mine.length), 1)[0] as string;
          await send(api, 'DELETE', `/api/limit-orders/${orderId}`, { token });
        } else if (roll < 0.3) {
          const reads = [
            `/api/orderbook/${optionId}`,
            `/api/orderbook/${optionId}`,
            '/api/events',
            '/healthz',
            '/readyz',
          ];
          const path = reads[Math.floor(random() * reads.length)] as string;
          await send(api, 'GET', path);
        } else {
          const kind = { market: roll > 0.85, sell: roll < 0.4 };
          const { path, body } = randomOrder(random, kind, optionId, `f${worker}-${sequence++}`);
          const response = await placeOrder(api, token, path, body);
          const placed = response?.status === 201 ? (response.body as { id: string; status: string }) : null;
          if (placed && (placed.status === 'open' || placed.status === 'partially_filled'))
            open.set(token, [...mine, placed.id]);
        }
      }
    }),
  );
}

/**
 * Milliseconds from now until every instance serves again: the time at which the first probe that succeeded on it
 * (an order placed and /readyz 200) was sent, so that the probe's own time on a busy machine is not counted.
 * Null when an instance does not serve within 10 s.
 */
async function recover(apis: Api[], token: string, optionId: string): Promise<number | null> {
  const started = performance.now();
  const recovered = await Promise.all(
    apis.map(async (api) => {
      while (performance.now() - started < 10_000) {
        const sentAt = performance.now();
        const [ready, order] = await Promise.all([
          send(api, 'GET', '/readyz'),
          placeOrder(api, token, '/api/limit-orders', {
            optionId,
            side: 'YES',
            action: 'BUY',
            quantity: 1,
            limitPriceCents: 1,
            clientOrderId: `probe-${sequence++}`,
          }),
        ]);
        if (ready?.status === 200 && order?.status === 201) return sentAt - started;
        await sleep(50);
      }
      return null;
    }),
  );
  return recovered.every((ms) => ms !== null) ? Math.round(Math.max(...(recovered as number[]))) : null;
}

/**
 * With the load paused, every follower's book must equal a fresh snapshot of it, at the same version, and the
 * instance's order book read (served from its read cache) must be at that version too.
 */
async function checkFollowers(
  apis: Api[],
  servers: ServerProcess[],
  followers: BookFollower[],
  optionIds: string[],
): Promise<string> {
  let release = () => {};
  paused = new Promise((resolve) => {
    release = resolve;
  });
  try {
    await sleep(300);
    let equal = 0;
    let total = 0;
    for (const [index, follower] of followers.entries()) {
      const url = `ws://127.0.0.1:${servers[index]?.port}/api/stream`;
      for (const optionId of optionIds) {
        const channel = `book:${optionId}`;
        total += 1;
        let fresh = await freshSnapshot(url, channel);
        const deadline = Date.now() + 3000;
        while (follower.books.get(channel)?.seq !== fresh.seq && Date.now() < deadline) {
          await sleep(100);
          fresh = await freshSnapshot(url, channel);
        }
        const book = follower.books.get(channel);
        const same =
          book?.seq === fresh.seq &&
          JSON.stringify(sortedLevels(book.levels.values())) === JSON.stringify(fresh.levels);
        const read = await (apis[index] as Api).request('GET', `/api/orderbook/${optionId}`);
        const readVersion = (read.body as { bookVersion?: number }).bookVersion;
        if (readVersion !== fresh.seq)
          failures.push(
            `${phase}: GET /api/orderbook/${optionId} at ${readVersion}, the book at ${fresh.seq}`,
          );
        if (same) equal += 1;
        else
          failures.push(
            `${phase}: subscriber of ${channel} at seq ${book?.seq}, fresh snapshot at ${fresh.seq}`,
          );
      }
    }
    return `${equal}/${total}`;
  } finally {
    paused = null;
    release();
  }
}

function summarise(
  fault: string,
  seen: Outcome[],
  recoveryMs: number | null,
  resynced: string,
  redisOnly: boolean,
): Row {
  // With only Redis away, no request may fail for it: a 503 there can only be the load's own (a busy option).
  const bad = seen.filter(
    (o) =>
      o.status === 'reset' ||
      (o.status >= 500 &&
        (o.status !== 503 || (redisOnly && o.code !== 'OPTION_BUSY' && o.code !== 'ORDER_QUEUE_FULL'))),
  );
  for (const o of bad.slice(0, 5)) failures.push(`${fault}: a request got ${o.status} ${o.code ?? ''}`);
  const health = seen.filter((o) => o.path === '/healthz' && o.status !== 200).length;
  if (health > 0) failures.push(`${fault}: /healthz answered other than 200 ${health} times`);
  const noRetryAfter = seen.filter((o) => o.status === 503 && !o.retryAfter && o.path !== '/readyz');
  if (noRetryAfter.length > 0) failures.push(`${fault}: ${noRetryAfter.length} 503s without Retry-After`);
  const slowest = Math.round(Math.max(0, ...seen.map((o) => o.ms)));
  if (slowest > REQUEST_BOUND_MS)
    failures.push(`${fault}: a request took ${slowest} ms (bound ${REQUEST_BOUND_MS})`);
  if (recoveryMs === null || recoveryMs > RECOVERY_LIMIT_MS)
    failures.push(`${fault}: recovery took ${recoveryMs ?? 'more than 10000'} ms`);
  const count = (test: (o: Outcome) => boolean) => seen.filter(test).length;
  return {
    fault,
    requests: seen.length,
    ok: count((o) => typeof o.status === 'number' && o.status < 300),
    rejected: count((o) => typeof o.status === 'number' && o.status >= 400 && o.status < 500),
    unavailable: count((o) => o.status === 503),
    failed: bad.length,
    slowestMs: slowest,
    recoveryMs,
    resynced,
    codes: codesOf(seen.filter((o) => o.status === 503 && o.path !== '/readyz')),
  };
}

type Direct = <T>(use: (client: pg.Client) => Promise<T>) => Promise<T>;

/** A probe's limit order placed after a fault and made due at once, for the expiry job to expire; null if refused. */
async function dueOrder(api: Api, token: string, optionId: string, direct: Direct): Promise<string | null> {
  const body = { optionId, side: 'YES', action: 'BUY', quantity: 1, limitPriceCents: 1, expiresInHours: 1 };
  const response = await placeOrder(api, token, '/api/limit-orders', {
    ...body,
    clientOrderId: `expiry-${sequence++}`,
  });
  if (response?.status !== 201) return null;
  const id = (response.body as { id: string }).id;
  await direct((client) =>
    client.query("UPDATE orders SET expires_at = now() - interval '1 second' WHERE id = $1", [id]),
  );
  return id;
}

/** Whether the expiry job expired the order within 5 s: a job's effect, not only its run count. */
async function expiredSoon(id: string | null, direct: Direct): Promise<boolean> {
  if (id === null) return false;
  const started = performance.now();
  while (performance.now() - started < 5_000) {
    const { rows } = await direct((client) => client.query('SELECT status FROM orders WHERE id = $1', [id]));
    if (rows[0]?.status === 'expired') return true;
    await sleep(100);
  }
  return false;
}

/** Job runs that did not fail, from an instance's /metrics. */
async function jobRuns(api: Api): Promise<number> {
  const metrics = String((await api.request('GET', '/metrics')).body);
  let total = 0;
  for (const match of metrics.matchAll(/^jobs_runs_total\{[^}]*outcome="(?:idle|worked)"[^}]*\} (\d+)/gm))
    total += Number(match[1]);
  return total;
}

function codesOf(seen: Outcome[]): string {
  const counts = new Map<string, number>();
  for (const o of seen) counts.set(o.code ?? 'none', (counts.get(o.code ?? 'none') ?? 0) + 1);
  return [...counts].map(([code, n]) => `${code} ${n}`).join(', ') || '-';
}

/** While Redis was away the instance counted locally (and said so in /metrics); now it counts in Redis again. */
async function checkRedisCounters(api: Api, redis: Redis, keyPrefix: string, token: string): Promise<void> {
  const metrics = await api.request('GET', '/metrics');
  const fallbacks = Number(/rate_limit_local_fallback_total (\d+)/.exec(String(metrics.body))?.[1] ?? 0);
  if (fallbacks === 0) failures.push('Redis fault: no request was counted locally');
  const keys = async () => (await redis.keys(`${keyPrefix}*`)).length;
  for (const key of await redis.keys(`${keyPrefix}*`)) await redis.del(key);
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline) {
    await api.request('GET', '/api/me/streak', { token });
    if ((await keys()) > 0) return;
    await sleep(100);
  }
  failures.push('Redis fault: the rate limit did not count in Redis again after it came back');
}

function checkLockFault(seen: Outcome[], lockedOption: string): void {
  const busy = seen.filter((o) => o.code === 'OPTION_BUSY').length;
  const placed = seen.filter((o) => o.status === 201).length;
  if (busy === 0) failures.push(`lock fault: no order on option ${lockedOption} was answered OPTION_BUSY`);
  if (placed === 0) failures.push('lock fault: no order was placed on the other options meanwhile');
}

async function verify(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const orders = await client.query<{ id: string; client_order_id: string | null }>(
      'SELECT id::text, client_order_id FROM orders',
    );
    const byId = new Map(orders.rows.map((row) => [row.id, row.client_order_id]));
    const clientIds = new Set(orders.rows.map((row) => row.client_order_id));
    const tradeIds = new Set(
      (await client.query<{ id: string }>('SELECT id::text FROM trades')).rows.map((row) => row.id),
    );
    let found = 0;
    for (const order of acknowledged) {
      if (byId.get(order.id) !== order.clientOrderId) {
        failures.push(`acknowledged order ${order.id} (${order.clientOrderId}) is missing`);
        continue;
      }
      const missing = order.tradeIds.filter((id) => !tradeIds.has(id));
      if (missing.length > 0) failures.push(`order ${order.id}: trades ${missing.join(', ')} are missing`);
      else found += 1;
    }
    for (const clientOrderId of refusedUnwritten) {
      if (clientIds.has(clientOrderId))
        failures.push(`order ${clientOrderId} was refused with 503 but written`);
    }
    const halfApplied = await client.query(`
      SELECT o.id FROM orders o LEFT JOIN trades t ON t.order_id = o.id
      GROUP BY o.id HAVING o.filled_quantity <> coalesce(sum(t.quantity), 0)`);
    if (halfApplied.rows.length > 0)
      failures.push(`${halfApplied.rows.length} orders' fills differ from their trades`);
    return found;
  } finally {
    await client.end();
  }
}

function report(found: number, auditCode: number | null): void {
  log(
    '\n| fault | requests | 2xx | 4xx | 503 | 500 or reset | slowest (ms) | recovery (ms) | subscribers resynced | 503 codes |',
  );
  log('|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    log(
      `| ${row.fault} | ${row.requests} | ${row.ok} | ${row.rejected} | ${row.unavailable} | ${row.failed} | ` +
        `${row.slowestMs} | ${row.recoveryMs ?? '> 10000'} | ${row.resynced} | ${row.codes} |`,
    );
  }
  log(`\nacknowledged orders ${acknowledged.length}, found with their trades ${found}`);
  log(
    `orders refused with OPTION_BUSY or ORDER_QUEUE_FULL ${refusedUnwritten.length}, none written: ${failures.every(
      (f) => !f.includes('refused with 503'),
    )}`,
  );
  log(`npm run audit: exit ${auditCode}`);
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(
      `fault test error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);

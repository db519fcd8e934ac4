import { execFileSync } from 'node:child_process';
import { Redis } from 'ioredis';
import pg from 'pg';
import { BookFollower, freshSnapshot, sortedLevels } from './lib/book-follower.js';
import {
  Api,
  BOOTSTRAP_TOKEN,
  createThrowawayDatabase,
  freePort,
  inParallel,
  type JsonResponse,
  openMarkets,
  percentile,
  randomOrder,
  registerOperator,
  runAudit,
  type ServerProcess,
  seededRandom,
  startServer,
  verdict,
  waitReady,
} from './lib/harness.js';
import { clusterOf, type LocalCluster } from './lib/pg-cluster.js';
import { startOwnRedis } from './lib/redis-server.js';
import { floodStreams } from './lib/stream-flood.js';
import { TcpProxy } from './lib/tcp-proxy.js';

/**
 * Faults of what the service depends on, and of its own life, made while it runs under load. Two real server
 * processes reach PostgreSQL and Redis through TCP proxies this script owns, and Redis is a redis-server of the
 * script's own when one is installed, so the shared servers are never touched (except the PostgreSQL restart, which
 * is the real thing, of the cluster FAULT_DATABASE_URL points at and no other). Faults made on the throw-away
 * database itself: read-only for new sessions (the open ones ended) and back, and a stand-in for a full disk (every
 * write failing with 53100, as PostgreSQL's "could not extend file" does). For each fault, with orders, cancels and
 * reads in flight and stream subscribers following every book:
 *   - the processes stay alive;
 *   - clients get only 2xx, 4xx and 503 (with Retry-After and an error code), no 500, no reset, no request longer
 *     than the bound;
 *   - the service serves again (an order placed, /readyz 200) within 2 s of the fault's end;
 *   - every subscriber's book equals a fresh snapshot afterwards;
 * and in the end every acknowledged order is stored with its trades, no order refused for a busy option or a full
 * queue was written, and `npm run audit` passes. Exits 1 on any failure.
 *
 *   FAULT_DATABASE_URL  PostgreSQL server to create a throw-away database on (default the local test server)
 *   FAULT_REDIS_URL     Redis server when no redis-server is installed (default redis://127.0.0.1:6379; the stall
 *                       needs a redis-server of the script's own and is left out without one)
 *   FAULT_SHORT         the CI run: eight clients, 3 s faults, no restart (default false)
 *   FAULT_RESTART       restart PostgreSQL with pg_ctlcluster: true (fail when it cannot), false, or unset (when
 *                       running as root, not short, and the URL points at a cluster of this machine)
 *   FAULT_DOWN_MS       how long each lasting fault lasts (default 5000, short 3000)
 *   FAULT_SEED          random seed (default the time)
 */

const adminUrl = process.env.FAULT_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const sharedRedisUrl = process.env.FAULT_REDIS_URL ?? 'redis://127.0.0.1:6379';
const short = process.env.FAULT_SHORT === 'true';
const restartSetting = process.env.FAULT_RESTART;
const downMs = Number(process.env.FAULT_DOWN_MS ?? (short ? 3000 : 5000));
const seed = Number(process.env.FAULT_SEED ?? Date.now() % 1_000_000);
const random = seededRandom(seed);
/** Two instances, so that a rolling restart always leaves one serving. */
const instances = 2;
const workers = short ? 8 : 16;
const steadyMs = short ? 800 : 2000;
const RECOVERY_LIMIT_MS = 2000;

/** The service's bounds in this run, and the longest a request may take with them. */
const TIMEOUTS = { acquire: 1000, statement: 2000, lock: 1000, idleInTransaction: 5000 };
/** How many lock_timeouts the lock fault holds its row for. */
const LOCK_HOLD_TIMEOUTS = 6;
const REQUEST_BOUND_MS = TIMEOUTS.statement + 1000 + TIMEOUTS.acquire + 1500;
/**
 * A fault that the service must be seen to report (read-only, a full disk) lasts its time at least, and longer until
 * every instance has reported it, up to this many times its time: on a loaded machine, replacing the connections
 * the fault ended can take most of its time.
 */
const CONDITION_WAIT_FACTOR = 3;
/** The service's documented defaults these faults hold it to. */
const REDIS_TIMEOUT_MS = 100;
const SHUTDOWN_TIMEOUT_MS = 10_000;
const STREAM_LIMIT = 100;
const FLOOD_CONNECTIONS = 1000;
/** The address the stream flood comes from: a loopback alias, so the load's own connections are not counted. */
const FLOOD_ADDRESS = '127.0.0.2';
/** How long PostgreSQL keeps a starting instance waiting. */
const LATE_MS = 3000;
const ADMIN = 'fault-admin@example.com';

interface Outcome {
  phase: string;
  path: string;
  status: number | 'reset';
  code?: string;
  ms: number;
  retryAfter: boolean;
  /** Why a reset request failed (the client's error code). */
  error?: string;
}

/** The public reads of the load: what a normal request's latency is measured on. */
const isRead = (o: Outcome) =>
  o.status === 200 && (o.path === '/api/events' || o.path.startsWith('/api/orderbook/'));

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
  /** What the fault's own checks measured. */
  notes: string;
}

const outcomes: Outcome[] = [];
const acknowledged: Acknowledged[] = [];
const refusedUnwritten: string[] = [];
const failures: string[] = [];
const rows: Row[] = [];
let phase = 'warm-up';
let paused: Promise<void> | null = null;
/** Connections refused by an instance that was down (a rolling restart): the load sent them to another. */
let failedOver = 0;
/**
 * Until when each instance is left alone, as a load balancer leaves an instance that refuses connections or says it
 * is shutting down (for its Retry-After), so that the load goes to the others meanwhile.
 */
const avoidUntil: number[] = [];
/** Requests sent and not yet answered. */
let inFlight = 0;
/** The instances, their clients and their stream followers; an instance restarted in place keeps its port. */
const servers: ServerProcess[] = [];
const apis: Api[] = [];
const followers: BookFollower[] = [];

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<number> {
  const cluster = await restartTarget();
  const database = await createThrowawayDatabase(adminUrl, 'fault');
  const ownRedis = await startOwnRedis();
  const redisUrl = new URL(ownRedis?.url ?? sharedRedisUrl);
  log(
    `fault test: ${instances} instances, ${workers} clients, faults of ${downMs} ms, seed ${seed}, ` +
      `Redis ${ownRedis ? `of its own at ${redisUrl.host}` : `at ${redisUrl.host}`}`,
  );
  const target = new URL(adminUrl);
  const pgProxy = new TcpProxy(target.hostname, Number(target.port || 5432));
  const redisProxy = new TcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
  const viaProxy = new URL(database.url);
  viaProxy.host = `127.0.0.1:${await pgProxy.listen()}`;
  await redisProxy.listen();
  const keyPrefix = `fault:${seed}:${Date.now()}:`;
  const env: Record<string, string> = {
    DATABASE_URL: viaProxy.toString(),
    REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
    REDIS_KEY_PREFIX: keyPrefix,
    RATE_LIMIT_MAX: '1000000',
    ADMIN_BOOTSTRAP_TOKEN: BOOTSTRAP_TOKEN,
    JOBS_ENABLED: 'true',
    JOB_INTERVAL_MS: '500',
    DATABASE_ACQUIRE_TIMEOUT_MS: String(TIMEOUTS.acquire),
    DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUTS.statement),
    DATABASE_LOCK_TIMEOUT_MS: String(TIMEOUTS.lock),
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: String(TIMEOUTS.idleInTransaction),
  };
  const redis = new Redis(redisUrl.toString(), { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  const extra: ServerProcess[] = [];
  try {
    for (let i = 0; i < instances; i++) servers.push(startServer(await freePort(), env));
    for (const server of servers) await waitReady(server);
    for (const server of servers) apis.push(new Api(server.port, workers + 4, 15_000));
    const { tokens, optionIds, probeToken, probeOption } = await prepare(apis[0] as Api);
    await installDiskFullSwitch(database.url);
    const channels = [...optionIds, probeOption].map((id) => `book:${id}`);
    for (const server of servers)
      followers.push(await BookFollower.open(`ws://127.0.0.1:${server.port}/api/stream`, channels));
    let stop = false;
    const load = runLoad(tokens, optionIds, () => stop);
    await sleep(steadyMs);

    const direct = async <T>(use: (client: pg.Client) => Promise<T>, url = database.url): Promise<T> => {
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => {});
      await client.connect();
      try {
        return await use(client);
      } finally {
        await client.end().catch(() => {});
      }
    };
    const databaseName = new URL(database.url).pathname.slice(1);
    const lockedOption = optionIds[0] as string;
    /** The answers of the orders sent on the locked option as the lock was taken, one to each instance. */
    let lockAnswers: (JsonResponse | null)[] = [];
    const notes = new Map<string, string>();
    /** `dropsListening`: the fault ends the listening connections, so every subscriber must get a fresh snapshot. */
    const faults: {
      name: string;
      make: () => Promise<void>;
      redisOnly?: boolean;
      dropsListening?: boolean;
      /** The 503 code the fault must have been answered with. */
      expectCode?: string;
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
        name: `the database read-only for ${downMs / 1000} s or more (new sessions read-only, the open ones ended), then writable`,
        dropsListening: true,
        expectCode: 'DATABASE_READ_ONLY',
        make: () =>
          direct(async (client) => {
            await client.query(`ALTER DATABASE ${databaseName} SET default_transaction_read_only = on`);
            try {
              await client.query(
                'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
                [databaseName],
              );
              const [ready] = await Promise.all([
                readiness('read_only', downMs),
                refusalProbes('DATABASE_READ_ONLY', probeToken, probeOption, downMs),
              ]);
              notes.set('read-only', ready);
            } finally {
              await client.query(`ALTER DATABASE ${databaseName} RESET default_transaction_read_only`);
            }
          }, adminUrl),
      },
      {
        name: `the disk full for ${downMs / 1000} s or more (every write failing with 53100), then space freed`,
        expectCode: 'DATABASE_DISK_FULL',
        make: () =>
          direct(async (client) => {
            await client.query('UPDATE fault_switch SET disk_full = true');
            try {
              const [ready] = await Promise.all([
                readiness('disk_full', downMs),
                refusalProbes('DATABASE_DISK_FULL', probeToken, probeOption, downMs),
              ]);
              notes.set('disk full', ready);
            } finally {
              await client.query('UPDATE fault_switch SET disk_full = false');
            }
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
        name: `Redis stalled for ${downMs / 1000} s (SIGSTOP: connections open, nothing answered)`,
        redisOnly: true,
        make: async () => {
          // Besides the load, a read every 20 ms on each instance, so that each window's p99 rests on hundreds of
          // reads and not on the few that happen to be in flight when Redis stalls (those wait REDIS_TIMEOUT_MS).
          let sampling = true;
          const sampler = Promise.all(
            apis.map(async (_, at) => {
              while (sampling) {
                await send(at, 'GET', '/api/events', {}, false);
                await sleep(20);
              }
            }),
          );
          const name = phase;
          try {
            phase = `${name}: before`;
            const before = outcomes.length;
            await sleep(downMs);
            const baseline = readsP99(outcomes.slice(before));
            phase = name;
            const from = outcomes.length;
            ownRedis?.freeze();
            try {
              await sleep(downMs);
            } finally {
              ownRedis?.thaw();
            }
            const window = outcomes.slice(from);
            const stalled = readsP99(window);
            notes.set(
              'redis stall',
              `reads p99 ${stalled.toFixed(0)} ms stalled (${window.filter(isRead).length} reads), ` +
                `${baseline.toFixed(0)} ms the ${downMs / 1000} s before (bound: +${REDIS_TIMEOUT_MS} ms)`,
            );
            if (!(stalled < baseline + REDIS_TIMEOUT_MS))
              failures.push(
                `Redis stall: reads p99 ${stalled.toFixed(0)} ms, past ${baseline.toFixed(0)} ms before + ${REDIS_TIMEOUT_MS} ms`,
              );
          } finally {
            sampling = false;
            await sampler;
          }
        },
      },
      {
        // Long enough for the refusal to show on a loaded machine: a transaction over several markets waits out one
        // lock_timeout, then the locked market's own transaction a second one, and only then is it refused; and a
        // transaction queued on the row behind another instance's waits a lock_timeout more for each one ahead.
        name: `an option row locked for ${(LOCK_HOLD_TIMEOUTS * TIMEOUTS.lock) / 1000} s (lock_timeout ${TIMEOUTS.lock / 1000} s)`,
        make: () =>
          direct(async (client) => {
            await client.query('BEGIN');
            await client.query('SELECT id FROM options WHERE id = $1 FOR UPDATE', [lockedOption]);
            // The load's orders on the locked option are left to chance: one order to each instance makes it sure.
            const probes = Promise.all(
              apis.map((_, at) => probeOrder(at, probeToken, lockedOption, `lock-${at}`)),
            );
            await sleep(LOCK_HOLD_TIMEOUTS * TIMEOUTS.lock);
            await client.query('ROLLBACK');
            lockAnswers = await probes;
          }),
      },
      {
        name: `${FLOOD_CONNECTIONS.toLocaleString('en')} stream connections from one address, held ${downMs / 1000} s`,
        make: async () => {
          notes.set('flood', await flood(channels[0] as string));
        },
      },
      {
        name: 'rolling SIGTERM under load (each instance stopped and started again in turn)',
        make: async () => {
          notes.set('rolling', await rollingRestart(env, channels));
        },
      },
      {
        name: `an instance started while PostgreSQL is unreachable, which arrives ${LATE_MS / 1000} s after its first try`,
        make: async () => {
          notes.set('late start', await lateStart(env, target, database.url, extra));
        },
      },
    ];
    if (ownRedis === null) {
      log('no redis-server installed: the Redis stall is left out');
      faults.splice(
        faults.findIndex((fault) => fault.name.startsWith('Redis stalled')),
        1,
      );
      if (!(await reachable(redis))) {
        log(`no Redis at ${redisUrl}: the Redis outage is left out`);
        faults.splice(
          faults.findIndex((fault) => fault.redisOnly),
          1,
        );
      }
    } else await redis.connect();
    if (cluster)
      faults.push({
        name: 'PostgreSQL restarted (`stop -m fast`, 5 s down, `start`)',
        make: () => restartPostgres(cluster),
        dropsListening: true,
      });

    for (const fault of faults) {
      phase = fault.name;
      const from = outcomes.length;
      const snapshotsBefore = followers.map((follower) => follower.snapshots);
      await fault.make();
      const recoveryMs = await recover(probeToken, probeOption);
      const due = await dueOrder(probeToken, probeOption, direct);
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
      const resynced = await checkFollowers([...optionIds, probeOption]);
      for (const server of [...servers, ...extra]) {
        if (server.child.exitCode !== null || server.child.signalCode !== null)
          failures.push(`${fault.name}: a server process exited\n${server.output().slice(-2000)}`);
      }
      extra.splice(0);
      const seen = outcomes.slice(from).filter((o) => o.phase === fault.name);
      const row = summarise(fault.name, seen, recoveryMs, resynced, fault.redisOnly === true);
      row.notes = [...notes.values()].join('; ') || '-';
      notes.clear();
      rows.push(row);
      if (fault.expectCode && !seen.some((o) => o.code === fault.expectCode))
        failures.push(`${fault.name}: no request was answered ${fault.expectCode}`);
      if (fault.redisOnly) await checkRedisCounters(apis[0] as Api, redis, keyPrefix, probeToken);
      if (fault.name.startsWith('an option row locked')) checkLockFault(seen, lockedOption, lockAnswers);
      if (fault.name.startsWith('PostgreSQL refusing')) {
        const notReady = seen.filter((o) => o.path === '/readyz' && o.status === 503);
        if (notReady.length === 0) failures.push(`${fault.name}: /readyz never answered 503`);
      }
      log(`${fault.name}: ${JSON.stringify(row)}`);
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
    for (const server of [...servers, ...extra])
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    redis.disconnect();
    await pgProxy.close();
    await redisProxy.close();
    await ownRedis?.stop();
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

/**
 * The stand-in for a full disk: a trigger on every table that fails every write with 53100 (the SQLSTATE and
 * message of PostgreSQL's "could not extend file") while a switch is on. Installed before the load starts, because
 * creating triggers under load could deadlock with the load's own transactions.
 */
async function installDiskFullSwitch(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
    );
    await client.query('CREATE TABLE fault_switch (disk_full boolean NOT NULL)');
    await client.query('INSERT INTO fault_switch VALUES (false)');
    await client.query(`CREATE FUNCTION fault_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT disk_full FROM fault_switch) THEN
          RAISE EXCEPTION 'could not extend file "base/%": No space left on device', TG_RELID
            USING ERRCODE = 'disk_full', HINT = 'Check free disk space.';
        END IF;
        RETURN NULL;
      END $$`);
    for (const { tablename } of rows)
      await client.query(
        `CREATE TRIGGER fault_disk_full BEFORE INSERT OR UPDATE OR DELETE ON "${tablename}" EXECUTE FUNCTION fault_disk_full()`,
      );
  } finally {
    await client.end();
  }
}

/** The p99 of the load's public reads among `seen`, in ms. */
function readsP99(seen: Outcome[]): number {
  return percentile(
    seen
      .filter(isRead)
      .map((o) => o.ms)
      .sort((x, y) => x - y),
    99,
  );
}

/**
 * Waits (up to `withinMs`) until every instance's /readyz answers 503 naming `reason`; says what it saw. A fault
 * whose instances never say so is a failure.
 */
async function readiness(reason: string, atLeastMs: number): Promise<string> {
  const started = performance.now();
  const withinMs = atLeastMs * CONDITION_WAIT_FACTOR;
  const seen = new Set<number>();
  while (seen.size < apis.length && performance.now() - started < withinMs) {
    for (const [i, api] of apis.entries()) {
      const res = await api.request('GET', '/readyz').catch(() => null);
      if (res?.status === 503 && (res.body as { reason?: string }).reason === reason) seen.add(i);
    }
    await sleep(100);
  }
  const left = atLeastMs - (performance.now() - started);
  if (left > 0) await sleep(left);
  if (seen.size < apis.length) {
    failures.push(`${phase}: /readyz did not answer 503 "${reason}" on every instance within ${withinMs} ms`);
    return `/readyz "${reason}" on ${seen.size} of ${apis.length} instances`;
  }
  return `/readyz 503 "${reason}" on every instance`;
}

/**
 * While a fault lasts, an order to each instance, again after each answer that is not `code` (a connection the
 * fault ended is answered DATABASE_UNAVAILABLE until the pool has replaced it), until one is: the fault's own code
 * is then sure to be seen however few orders the load sends on a slow machine. Each answer is recorded.
 */
async function refusalProbes(
  code: string,
  token: string,
  optionId: string,
  atLeastMs: number,
): Promise<void> {
  const started = performance.now();
  const withinMs = atLeastMs * CONDITION_WAIT_FACTOR;
  await Promise.all(
    apis.map(async (_, at) => {
      for (let n = 0; performance.now() - started < withinMs; n++) {
        const res = await probeOrder(at, token, optionId, `${code}-${at}-${n}`);
        if ((res?.body as { code?: string } | undefined)?.code === code) return;
        await sleep(100);
      }
    }),
  );
}

/** The cluster to restart, or null: FAULT_RESTART=true and none is found is a failure, said at once. */
async function restartTarget(): Promise<LocalCluster | null> {
  if (restartSetting === 'false' || (restartSetting === undefined && (short || process.getuid?.() !== 0)))
    return null;
  const found = await clusterOf(adminUrl);
  if ('refusal' in found) {
    const why = `FAULT_DATABASE_URL's PostgreSQL is not restarted: ${found.refusal}`;
    if (restartSetting === 'true') throw new Error(why);
    log(why);
    return null;
  }
  return found;
}

/** Stops the PostgreSQL cluster FAULT_DATABASE_URL points at for 5 s, and always starts it again. */
async function restartPostgres(cluster: LocalCluster): Promise<void> {
  const control = (action: string[]) =>
    execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', cluster.version, cluster.name, ...action]);
  try {
    control(['stop', '-m', 'fast']);
    await sleep(5000);
  } finally {
    control(['start']);
  }
}

/**
 * 1,000 stream connections from one address against the first instance, each subscribing to a book, held while the
 * load goes on: no more than the bound may be accepted, every other handshake refused 429 TOO_MANY_CONNECTIONS with
 * Retry-After, and the load's reads must not suffer. Says what it measured.
 */
async function flood(channel: string): Promise<string> {
  const server = servers[0] as ServerProcess;
  const rss = async () => {
    const metrics = String((await (apis[0] as Api).request('GET', '/metrics')).body);
    return Number(/^process_resident_memory_bytes (\d+)/m.exec(metrics)?.[1] ?? 0) / 1e6;
  };
  const rssBefore = await rss();
  const streams = await floodStreams(
    `ws://127.0.0.1:${server.port}/api/stream`,
    FLOOD_CONNECTIONS,
    FLOOD_ADDRESS,
    channel,
  );
  try {
    const from = outcomes.length;
    await sleep(downMs);
    const during = readsP99(outcomes.slice(from));
    const rssDuring = await rss();
    const refused = [...streams.refused].map(([key, n]) => `${n} × ${key}`).join(', ');
    if (streams.accepted.length > STREAM_LIMIT)
      failures.push(`stream flood: ${streams.accepted.length} connections accepted, bound ${STREAM_LIMIT}`);
    if (
      streams.accepted.length + (streams.refused.get('429 TOO_MANY_CONNECTIONS') ?? 0) !==
      FLOOD_CONNECTIONS
    )
      failures.push(
        `stream flood: answers other than 101 or 429 TOO_MANY_CONNECTIONS: ${refused}, ${streams.failed} failed`,
      );
    if (streams.withoutRetryAfter > 0)
      failures.push(`stream flood: ${streams.withoutRetryAfter} refusals without Retry-After`);
    return (
      `${streams.accepted.length} accepted, ${refused}; reads p99 ${during.toFixed(0)} ms while held; ` +
      `RSS ${rssBefore.toFixed(0)} → ${rssDuring.toFixed(0)} MB`
    );
  } finally {
    streams.close();
  }
}

/**
 * Stops each instance with SIGTERM in turn under load and starts it again on the same port: it must exit 0 within
 * SHUTDOWN_TIMEOUT_MS, answering what arrives meanwhile 503 SHUTTING_DOWN with Retry-After (the load sends what it
 * refuses to the other instance, as a load balancer would). Says how long each stop took.
 */
async function rollingRestart(env: Record<string, string>, channels: string[]): Promise<string> {
  const stops: string[] = [];
  const failedOverBefore = failedOver;
  for (let i = 0; i < servers.length; i++) {
    const old = servers[i] as ServerProcess;
    const started = performance.now();
    old.child.kill('SIGTERM');
    const exit = await old.exited;
    const stoppedMs = performance.now() - started;
    stops.push(`${(stoppedMs / 1000).toFixed(1)} s`);
    if (exit.code !== 0)
      failures.push(`rolling restart: instance ${i} exited ${exit.code}\n${old.output().slice(-2000)}`);
    if (stoppedMs > SHUTDOWN_TIMEOUT_MS)
      failures.push(
        `rolling restart: instance ${i} took ${Math.round(stoppedMs)} ms to stop (bound ${SHUTDOWN_TIMEOUT_MS})`,
      );
    const next = startServer(old.port, env);
    servers[i] = next;
    await waitReady(next);
    followers[i]?.close();
    followers[i] = await BookFollower.open(`ws://127.0.0.1:${next.port}/api/stream`, channels);
  }
  const shuttingDown = outcomes.filter((o) => o.phase === phase && o.code === 'SHUTTING_DOWN').length;
  return (
    `stops took ${stops.join(' and ')}, exit 0; ${shuttingDown} answers 503 SHUTTING_DOWN; ` +
    `${failedOver - failedOverBefore} requests refused a connection and sent to the other instance`
  );
}

/**
 * Starts one more instance while PostgreSQL refuses its connections (through a proxy of its own), and lets them
 * through LATE_MS after its first try: the instance must wait, logging each try, reach PostgreSQL within 2 s of its
 * arrival (the back-off is at most 1 s) and then start serving by itself. Says what it measured.
 */
async function lateStart(
  env: Record<string, string>,
  target: URL,
  databaseUrl: string,
  extra: ServerProcess[],
): Promise<string> {
  const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
  const via = new URL(databaseUrl);
  via.host = `127.0.0.1:${await proxy.listen()}`;
  proxy.refuse();
  const server = startServer(await freePort(), { ...env, DATABASE_URL: via.toString(), LOG_LEVEL: 'info' });
  extra.push(server);
  const line = (msg: string) => server.logLines().filter((entry) => entry.msg === msg);
  try {
    // The process has started once it tries; PostgreSQL then stays away LATE_MS longer.
    const startedAt = performance.now();
    while (line('waiting for the database').length === 0 && server.child.exitCode === null) {
      if (performance.now() - startedAt > 60_000) break;
      await sleep(50);
    }
    await sleep(LATE_MS);
    const tries = line('waiting for the database').length;
    if (server.child.exitCode !== null || tries < 2)
      failures.push(
        `late start: ${tries} tries logged while PostgreSQL was away\n${server.output().slice(-2000)}`,
      );
    const arrivedAt = Date.now();
    proxy.pass();
    const api = new Api(server.port, 2, 15_000);
    try {
      let servedMs: number | null = null;
      while (Date.now() - arrivedAt < 30_000) {
        const [ready, read] = await Promise.all([
          api.request('GET', '/readyz').catch(() => null),
          api.request('GET', '/api/events').catch(() => null),
        ]);
        if (ready?.status === 200 && read?.status === 200) {
          servedMs = Date.now() - arrivedAt;
          break;
        }
        await sleep(50);
      }
      const reachedAt = line('the database answered')[0]?.time;
      const reachedMs = typeof reachedAt === 'number' ? reachedAt - arrivedAt : null;
      if (reachedMs === null || reachedMs > RECOVERY_LIMIT_MS)
        failures.push(`late start: PostgreSQL reached ${reachedMs ?? 'never'} ms after it arrived`);
      if (servedMs === null) failures.push('late start: the instance never served');
      server.child.kill('SIGTERM');
      const exit = await server.exited;
      extra.splice(extra.indexOf(server), 1);
      if (exit.code !== 0) failures.push(`late start: the instance exited ${exit.code} on SIGTERM`);
      return (
        `${tries} tries logged while waiting; PostgreSQL reached ${reachedMs ?? 'never'} ms after it arrived, ` +
        `serving ${servedMs ?? 'never'} ms after (the app's own start)`
      );
    } finally {
      await api.close();
    }
  } finally {
    await proxy.close();
  }
}

/**
 * Traders, two markets of two options each for the load, and one option only the recovery probe trades, so that
 * what it measures is the service coming back, not the load's queues.
 */
async function prepare(
  api: Api,
): Promise<{ tokens: string[]; optionIds: string[]; probeToken: string; probeOption: string }> {
  const admin = { token: await registerOperator(api, ADMIN, 'fault admin password') };
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

/** Nothing was sent: the instance was not listening (stopped, or not yet started again). */
const refusedConnection = (error: unknown) => (error as { code?: string } | null)?.code === 'ECONNREFUSED';

/**
 * One request to instance `at`, recorded under the current phase; a network failure is recorded as a reset. A
 * refused connection (nothing sent) goes to the next instance, as a load balancer would send it, unless `failover`
 * is off (a probe of one instance).
 */
async function send(
  at: number,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  options: { token?: string; body?: unknown } = {},
  failover = true,
): Promise<JsonResponse | null> {
  const recordedAt = phase;
  const started = performance.now();
  const now = Date.now();
  // The first instance from `at` on that is not being left alone (or `at` itself, if all are).
  const first = failover
    ? (Array.from({ length: apis.length }, (_, i) => (at + i) % apis.length).find(
        (i) => (avoidUntil[i] ?? 0) <= now,
      ) ?? at)
    : at;
  for (let attempt = 0; ; attempt++) {
    const target = (first + attempt) % apis.length;
    const api = apis[target] as Api;
    inFlight += 1;
    try {
      const response = await api.request(method, path, options).finally(() => {
        inFlight -= 1;
      });
      const code = (response.body as { code?: string } | null)?.code;
      outcomes.push({
        phase: recordedAt,
        path,
        status: response.status,
        ...(code ? { code } : {}),
        ms: response.ms,
        retryAfter: response.headers['retry-after'] !== undefined,
      });
      if (code === 'SHUTTING_DOWN')
        avoidUntil[target] = Date.now() + 1000 * Number(response.headers['retry-after'] ?? 1);
      return response;
    } catch (error) {
      if (failover && refusedConnection(error) && attempt < apis.length) {
        failedOver += 1;
        avoidUntil[target] = Date.now() + 1000;
        continue;
      }
      outcomes.push({
        phase: recordedAt,
        path,
        status: 'reset',
        ms: performance.now() - started,
        retryAfter: false,
        error: (error as { code?: string }).code ?? String(error),
      });
      return null;
    }
  }
}

/** An order through `send`: records what was acknowledged, and what was refused before anything was written. */
async function placeOrder(
  at: number,
  token: string,
  path: string,
  body: Record<string, unknown>,
  failover = true,
) {
  const response = await send(at, 'POST', path, { token, body }, failover);
  if (response?.status === 201) {
    const placed = response.body as { id: string; status: string; trades: { id: string }[] };
    acknowledged.push({
      id: placed.id,
      clientOrderId: body.clientOrderId as string,
      tradeIds: placed.trades.map((trade) => trade.id),
    });
  }
  const code = (response?.body as { code?: string } | undefined)?.code;
  if (
    response?.status === 503 &&
    (code === 'OPTION_BUSY' || code === 'ORDER_QUEUE_FULL' || code === 'SHUTTING_DOWN')
  )
    refusedUnwritten.push(body.clientOrderId as string);
  return response;
}

/** Orders, cancels and public reads from every worker, spread over the instances, until `done()`. */
async function runLoad(tokens: string[], optionIds: string[], done: () => boolean) {
  const open = new Map<string, string[]>();
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      const at = worker % instances;
      while (!done()) {
        if (paused) await paused;
        const token = tokens[Math.floor(random() * tokens.length)] as string;
        const optionId = optionIds[Math.floor(random() * optionIds.length)] as string;
        const roll = random();
        const mine = open.get(token) ?? [];
        if (roll < 0.15 && mine.length > 0) {
          const orderId = mine.splice(Math.floor(random() * mine.length), 1)[0] as string;
          await send(at, 'DELETE', `/api/limit-orders/${orderId}`, { token });
        } else if (roll < 0.3) {
          const reads = [
            `/api/orderbook/${optionId}`,
            `/api/orderbook/${optionId}`,
            '/api/events',
            '/healthz',
            '/readyz',
          ];
          const path = reads[Math.floor(random() * reads.length)] as string;
          await send(at, 'GET', path);
        } else {
          const kind = { market: roll > 0.85, sell: roll < 0.4 };
          const { path, body } = randomOrder(random, kind, optionId, `f${worker}-${sequence++}`);
          const response = await placeOrder(at, token, path, body);
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
async function recover(token: string, optionId: string): Promise<number | null> {
  const started = performance.now();
  const recovered = await Promise.all(
    apis.map(async (_, at) => {
      while (performance.now() - started < 10_000) {
        const sentAt = performance.now();
        const [ready, order] = await Promise.all([
          send(at, 'GET', '/readyz', {}, false),
          probeOrder(at, token, optionId, `probe-${sequence++}`),
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
async function checkFollowers(optionIds: string[]): Promise<string> {
  let release = () => {};
  paused = new Promise((resolve) => {
    release = resolve;
  });
  try {
    // Every request already sent is answered first (a slow one would change a book under the comparison).
    const quietBy = performance.now() + 10_000;
    while (inFlight > 0 && performance.now() < quietBy) await sleep(20);
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
  // With only Redis away, no request may fail for it: a 503 there can only be the load's own (a busy option, a full
  // queue, or a statement past its timeout on a machine the load keeps busy, which no Redis fault can cause).
  const loadsOwn = (o: Outcome) =>
    o.code === 'OPTION_BUSY' ||
    o.code === 'ORDER_QUEUE_FULL' ||
    (o.code === 'DATABASE_UNAVAILABLE' && o.ms >= TIMEOUTS.statement);
  const bad = seen.filter(
    (o) => o.status === 'reset' || (o.status >= 500 && (o.status !== 503 || (redisOnly && !loadsOwn(o)))),
  );
  for (const o of bad.slice(0, 5))
    failures.push(
      `${fault}: ${o.path} got ${o.status} ${o.code ?? o.error ?? ''} after ${Math.round(o.ms)} ms`,
    );
  const health = seen.filter((o) => o.path === '/healthz' && o.status !== 200).length;
  if (health > 0) failures.push(`${fault}: /healthz answered other than 200 ${health} times`);
  const noRetryAfter = seen.filter((o) => o.status === 503 && !o.retryAfter && o.path !== '/readyz');
  if (noRetryAfter.length > 0) failures.push(`${fault}: ${noRetryAfter.length} 503s without Retry-After`);
  const noCode = seen.filter((o) => o.status === 503 && o.code === undefined && o.path !== '/readyz');
  if (noCode.length > 0) failures.push(`${fault}: ${noCode.length} 503s without the documented error body`);
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
    notes: '-',
  };
}

type Direct = <T>(use: (client: pg.Client) => Promise<T>, url?: string) => Promise<T>;

/** A probe's limit order placed after a fault and made due at once, for the expiry job to expire; null if refused. */
async function dueOrder(token: string, optionId: string, direct: Direct): Promise<string | null> {
  const response = await probeOrder(0, token, optionId, `expiry-${sequence++}`, { expiresInHours: 1 }, true);
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

/**
 * A bid of 1 share at 1¢ (it rests, and never trades with the load's prices), sent to instance `at` (alone, unless
 * `failover`: a probe of each instance must be answered by that instance); `extra` adds to the order.
 */
function probeOrder(
  at: number,
  token: string,
  optionId: string,
  clientOrderId: string,
  extra: Record<string, unknown> = {},
  failover = false,
): Promise<JsonResponse | null> {
  const body = {
    optionId,
    side: 'YES',
    action: 'BUY',
    quantity: 1,
    limitPriceCents: 1,
    clientOrderId,
    ...extra,
  };
  return placeOrder(at, token, '/api/limit-orders', body, failover);
}

/**
 * Every instance refused its order on the locked option with 503 OPTION_BUSY before the lock ended (waits on one row
 * queue behind each other, each up to lock_timeout, so it may take more than one), and the other options traded.
 */
function checkLockFault(seen: Outcome[], lockedOption: string, probes: (JsonResponse | null)[]): void {
  probes.forEach((response, at) => {
    const code = (response?.body as { code?: string } | undefined)?.code;
    if (response?.status !== 503 || code !== 'OPTION_BUSY')
      failures.push(
        `lock fault: instance ${at} answered ${response?.status ?? 'nothing'} ${code ?? ''} to an order on option ` +
          `${lockedOption}, held locked for ${LOCK_HOLD_TIMEOUTS * TIMEOUTS.lock} ms, not 503 OPTION_BUSY`,
      );
  });
  const placed = seen.filter((o) => o.status === 201).length;
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
    '\n| fault | requests | 2xx | 4xx | 503 | 500 or reset | slowest (ms) | recovery (ms) | subscribers resynced | 503 codes | measured |',
  );
  log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    log(
      `| ${row.fault} | ${row.requests} | ${row.ok} | ${row.rejected} | ${row.unavailable} | ${row.failed} | ` +
        `${row.slowestMs} | ${row.recoveryMs ?? '> 10000'} | ${row.resynced} | ${row.codes} | ${row.notes} |`,
    );
  }
  log(`\nacknowledged orders ${acknowledged.length}, found with their trades ${found}`);
  log(
    `orders refused with OPTION_BUSY, ORDER_QUEUE_FULL or SHUTTING_DOWN ${refusedUnwritten.length}, none written: ${failures.every(
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

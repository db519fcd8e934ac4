import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { Pool } from 'undici';
import { createThrowawayDatabase, SECRETS_KEY } from '../scripts/lib/harness.js';

/**
 * What the HTTP, read and stream benchmarks share: a throw-away PostgreSQL database, real server processes on
 * it, JSON requests, user registration, the ledger audit, and samples of the servers' memory and CPU.
 */

export const ADMIN_EMAIL = 'bench-admin@example.com';
/** The bootstrap token the bench's services take while no account is admin. */
const ADMIN_BOOTSTRAP_TOKEN = 'bench-bootstrap-token-0123456789abcdef';
const PASSWORD = 'bench password';

export interface Cluster {
  databaseUrl: string;
  ports: number[];
  /** Base URLs, one per instance. */
  urls: string[];
  pids: number[];
  /** Milliseconds from the first server's spawn to its first ready answer (it runs the migrations). */
  startupMs: number;
  /** CPU seconds the first server had used by then (its share of a busy machine does not count). */
  startupCpuSeconds: number;
  stop(): Promise<void>;
}

/**
 * With BENCH_EXPLAIN=1 the servers' database sessions load auto_explain: PostgreSQL writes the plan of every
 * statement they run, with actual times, buffers and trigger times, to its log (read it with bench/plans.ts).
 */
function serverDatabaseUrl(url: string): string {
  if (!process.env.BENCH_EXPLAIN) return url;
  const options = [
    'session_preload_libraries=auto_explain',
    'auto_explain.log_min_duration=0',
    'auto_explain.log_analyze=on',
    'auto_explain.log_buffers=on',
    'auto_explain.log_triggers=on',
    'auto_explain.log_timing=on',
  ].map((option) => `-c ${option}`);
  return `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(options.join(' '))}`;
}

/** Extra node flags for the server processes, e.g. `--cpu-prof --cpu-prof-dir=bench/results/profiles`. */
const SERVER_NODE_FLAGS = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean);

/** How `npm start` runs the server: `[NAME=value ...] node <flags> dist/server.js` in package.json. */
const START = /^((?:\w+=\S+ )*)node (.*) dist\/server\.js$/.exec(
  JSON.parse(readFileSync('package.json', 'utf8')).scripts.start,
);
if (!START) throw new Error('package.json: "start" is not `[NAME=value ...] node <flags> dist/server.js`');
/** Its environment variables (the allocator's arenas) and its node flags. */
const START_ENV = Object.fromEntries(
  (START[1] as string)
    .split(' ')
    .filter(Boolean)
    .map((pair) => pair.split('=') as [string, string]),
);
const START_FLAGS = (START[2] as string).split(' ').filter(Boolean);

/** The servers run as `npm start` runs them: the compiled dist/server.js (bench/run.ts builds it first). */
function startServer(port: number, databaseUrl: string): ChildProcess {
  return spawn(process.execPath, [...SERVER_NODE_FLAGS, ...START_FLAGS, 'dist/server.js'], {
    env: {
      ...process.env,
      ...START_ENV,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: serverDatabaseUrl(databaseUrl),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '10000000',
      ORDER_RATE_LIMIT: '10000000',
      // The load comes from one address standing for many clients: its connections are not bounded per address.
      STREAM_MAX_CONNECTIONS_PER_ADDRESS: '1000000',
      HTTP_MAX_IDLE_CONNECTIONS_PER_ADDRESS: '1000000',
      LOGIN_MAX_FAILURES: '1000',
      JOBS_ENABLED: 'false',
      SEED_DEMO: 'false',
      ADMIN_BOOTSTRAP_TOKEN,
      SECRETS_KEY,
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function waitReady(port: number, server: ChildProcess): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (server.exitCode !== null) throw new Error(`server on ${port} exited with code ${server.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server on ${port} did not become ready`);
}

/**
 * Creates a database and starts `instances` server processes on it. The first starts alone, so that it runs
 * the migrations. `prepare` runs on the new database before any server starts (to fill it, say). `stop` ends the
 * servers and drops the database.
 */
export async function startCluster(
  adminUrl: string,
  instances: number,
  options: { prefix?: string; prepare?: (databaseUrl: string) => Promise<void> } = {},
): Promise<Cluster> {
  const database = await createThrowawayDatabase(adminUrl, options.prefix ?? 'bench');
  // Below the kernel's ephemeral range (32768 and up here), which the load's own client sockets draw from.
  const base = 20000 + Math.floor(Math.random() * 1000) * 10;
  const ports = Array.from({ length: instances }, (_, i) => base + i);
  const servers: ChildProcess[] = [];
  const stop = async () => {
    for (const server of servers) if (server.exitCode === null) server.kill('SIGTERM');
    await Promise.all(
      servers.map((s) => new Promise((r) => (s.exitCode !== null ? r(null) : s.on('exit', r)))),
    );
    await database.drop();
  };
  let startupMs = 0;
  let startupCpuSeconds = 0;
  try {
    await options.prepare?.(database.url);
    const started = performance.now();
    const first = startServer(ports[0] as number, database.url);
    servers.push(first);
    await waitReady(ports[0] as number, first);
    startupMs = Math.round(performance.now() - started);
    startupCpuSeconds = cpuSeconds(first.pid as number);
    for (const port of ports.slice(1)) servers.push(startServer(port, database.url));
    for (const [i, port] of ports.entries()) if (i > 0) await waitReady(port, servers[i] as ChildProcess);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    databaseUrl: database.url,
    ports,
    urls: ports.map((port) => `http://127.0.0.1:${port}`),
    pids: servers.map((s) => s.pid as number),
    startupMs,
    startupCpuSeconds,
    stop,
  };
}

export async function json(
  pool: Pool,
  method: 'GET' | 'POST',
  path: string,
  token: string | null,
  body?: unknown,
) {
  const res = await pool.request({
    method,
    path,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : null };
}

/** Runs `run` on each item with at most `limit` at once. */
export async function inBatches<T>(
  items: T[],
  limit: number,
  run: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const index = next++;
        await run(items[index] as T, index);
      }
    }),
  );
}

/** Registers the operator, makes it admin with the bootstrap token, and returns its session token. */
export async function registerAdmin(pool: Pool): Promise<string> {
  const res = await json(pool, 'POST', '/api/auth/register', null, {
    email: ADMIN_EMAIL,
    password: PASSWORD,
  });
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`admin registration: ${res.status} ${JSON.stringify(res.body)}`);
  const token: string = res.body.token;
  const granted = await json(pool, 'POST', '/api/auth/admin-bootstrap', token, {
    token: ADMIN_BOOTSTRAP_TOKEN,
  });
  if (granted.status !== 200)
    throw new Error(`admin bootstrap: ${granted.status} ${JSON.stringify(granted.body)}`);
  return token;
}

/** Registers `count` users, 16 at a time spread over the pools, and returns their session tokens. */
export async function registerUsers(pools: Pool[], count: number, prefix = 'bench'): Promise<string[]> {
  const tokens: string[] = new Array(count);
  await inBatches(
    Array.from({ length: count }, (_, i) => i),
    16,
    async (i) => {
      const res = await json(pools[i % pools.length] as Pool, 'POST', '/api/auth/register', null, {
        email: `${prefix}-${i}@example.com`,
        password: PASSWORD,
      });
      if (!res.body?.token) throw new Error(`registration: ${res.status} ${JSON.stringify(res.body)}`);
      tokens[i] = res.body.token;
    },
  );
  return tokens;
}

export interface NewEvent {
  title: string;
  category: string;
  description?: string;
  featured?: boolean;
  options: { label: string; liquidityCents: number }[];
}

/** Creates an open event; returns its option ids. */
export async function createEvent(pool: Pool, adminToken: string, event: NewEvent): Promise<string[]> {
  const res = await json(pool, 'POST', '/api/admin/events', adminToken, {
    ...event,
    closesAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    open: true,
  });
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`event creation: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body.options as { id: string }[]).map((option) => option.id);
}

/** Runs the ledger audit (src/cli/audit.ts) on the database; true when every invariant holds. */
export async function runAudit(databaseUrl: string): Promise<boolean> {
  const audit = spawn(process.execPath, ['--import', 'tsx', 'src/cli/audit.ts'], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise<boolean>((resolve) => audit.on('exit', (code) => resolve(code === 0)));
}

/** A deterministic pseudo-random sequence in [0, 1). */
export function lcg(seed = 1): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** The value at percentile `p` of an ascending array (0 when empty). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export const round1 = (x: number) => Math.round(x * 10) / 10;

function rssKb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+)\s*kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Seconds of CPU (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), counted from field 3: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * Samples every process's resident memory (VmRSS in /proc/<pid>/status) every `everyMs`; `stop` returns the
 * maximum seen for each process, in MB.
 */
export function sampleRss(pids: number[], everyMs = 250): { stop(): number[] } {
  const max = pids.map(() => 0);
  const sample = () => {
    for (const [i, pid] of pids.entries()) max[i] = Math.max(max[i] as number, rssKb(pid));
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return max.map((kb) => round1(kb / 1024));
    },
  };
}

/** The PostgreSQL server processes serving a database's connections (their CPU is the database's work). */
export async function postgresBackends(databaseUrl: string): Promise<number[]> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

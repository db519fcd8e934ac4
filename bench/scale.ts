import { loadavg } from 'node:os';
import pg from 'pg';
import { Pool } from 'undici';
import { openDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';
import { hashPassword } from '../src/platform/passwords.js';
import {
  type Cluster,
  createEvent,
  json,
  registerAdmin,
  registerUsers,
  round1,
  runAudit,
  startCluster,
} from './harness.js';
import { measureOrders, type OrderLoad } from './http.js';
import { load, type ReadRun } from './reads.js';
import { type BusyYear, fillBusyYear, SCALE_PASSWORD } from './scale-fill.js';

/**
 * A busy year against an empty database: the same reads, the same order path, the same start-up and the same audit
 * on two throw-away databases in one run, one migrated and empty, one filled with a year of trading
 * (bench/scale-fill.ts), each figure beside the other.
 *
 * The reads are those a user and a bot make (the list and a search, an event's page, a book, candles, the tape, a
 * trader's positions and portfolio (all at once, and a page), their fills, orders and feed, the leaderboard, a public profile, the bot's open
 * orders and fills), each in turn for `readSeconds` on `connections` keep-alive connections without pipelining, so
 * that the latency is the request's own. The order path is case (a)'s shape (single limit orders, 64 in flight) and
 * case (g)'s (batches of 20, 16 in flight) on a market of its own, by `traders` users registered for it.
 */
export interface ScaleOptions {
  databaseUrl: string;
  scale: number;
  readSeconds: number;
  orderSeconds: number;
  connections: number;
  traders: number;
}

export interface Measured<T> {
  /** The 1-minute load average of the machine when the measurement started. */
  load: number;
  run: T;
}

export interface ScaleSide {
  startupMs: number;
  startupCpuSeconds: number;
  reads: Record<string, Measured<ReadRun>>;
  single: Measured<OrderLoad>;
  batch: Measured<OrderLoad>;
  audit: { ms: number; clean: boolean; load: number };
}

export interface ScaleResult {
  scale: number;
  year: BusyYear | null;
  fillSeconds: number;
  empty: ScaleSide;
  busy: ScaleSide;
  /**
   * Bytes per table of the busy database (table, indexes and TOAST) and its rows (the planner's estimate), largest
   * first; and the whole database.
   */
  sizes: [string, number, number][];
  databaseBytes: number;
}

const load1 = () => round1(loadavg()[0] ?? 0);

/** The subjects of the reads in one database: an event, its busiest option, a trader and the bot. */
interface Subjects {
  eventSlug: string;
  optionId: string;
  trader: { token: string; username: string };
  bot: { token: string };
}

async function signIn(pool: Pool, email: string, register: boolean) {
  const path = register ? '/api/auth/register' : '/api/auth/login';
  const res = await json(pool, 'POST', path, null, { email, password: SCALE_PASSWORD });
  if (!res.body?.token) throw new Error(`${path} ${email}: ${res.status} ${JSON.stringify(res.body)}`);
  const me = await json(pool, 'GET', '/api/auth/me', res.body.token);
  return { token: res.body.token as string, username: me.body.user?.username ?? me.body.username };
}

/** In the busy database, the year's trader and bot; in the empty one, the same two registered and one event. */
async function subjects(pool: Pool, admin: string, busy: boolean): Promise<Subjects> {
  const trader = await signIn(pool, 'scale-1@example.com', !busy);
  const bot = await signIn(pool, 'scale-2@example.com', !busy);
  if (busy) return { eventSlug: 'scale-event-1', optionId: '1', trader, bot };
  const [optionId] = await createEvent(pool, admin, {
    title: 'Will the Mumbai monsoon question 1 be yes?',
    category: 'weather',
    options: Array.from({ length: 10 }, (_, i) => ({ label: `Option ${i + 1}`, liquidityCents: 0 })),
  });
  const events = await json(pool, 'GET', '/api/events?limit=1', null);
  return { eventSlug: events.body.data[0].slug, optionId: optionId as string, trader, bot };
}

/** The reads measured, by name: path and whose session. */
function readPlan(s: Subjects): [string, string, string | null][] {
  const option = `/api/options/${s.optionId}`;
  return [
    ['events list', '/api/events', null],
    ['events search', '/api/events?q=monsoon', null],
    ["an event's page", `/api/events/by-slug/${s.eventSlug}`, null],
    ['a book', `/api/orderbook/${s.optionId}`, null],
    ['candles 1h', `${option}/candles?interval=1h`, null],
    ['candles 1m', `${option}/candles?interval=1m`, null],
    ['the tape', `${option}/trades`, null],
    ['leaderboard', '/api/leaderboard', null],
    ['a public profile', `/api/users/${s.trader.username}`, null],
    ["trader's positions and portfolio", '/api/positions', s.trader.token],
    ["trader's positions, a page of 100, and portfolio", '/api/positions?limit=100', s.trader.token],
    ["trader's portfolio history", '/api/me/portfolio-history', s.trader.token],
    ["trader's fills", '/api/me/fills', s.trader.token],
    ["trader's order history", '/api/limit-orders?status=history', s.trader.token],
    ["trader's trades", '/api/trades', s.trader.token],
    ["trader's notifications", '/api/me/notifications', s.trader.token],
    ["bot's open orders", '/api/limit-orders', s.bot.token],
    ["bot's fills", '/api/me/fills', s.bot.token],
    ["bot's order history", '/api/limit-orders?status=history', s.bot.token],
  ];
}

async function measureReads(cluster: Cluster, s: Subjects, options: ScaleOptions) {
  const url = cluster.urls[0] as string;
  const pid = cluster.pids[0] as number;
  const reads: Record<string, Measured<ReadRun>> = {};
  for (const [name, path, token] of readPlan(s)) {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const loadAtStart = load1();
    const settings = { connections: options.connections, pipelining: 1, workers: 0 };
    const run = await load(url, [path], options.readSeconds, settings, pid, headers);
    reads[name] = { load: loadAtStart, run };
  }
  return reads;
}

async function measureOrderPath(pool: Pool, admin: string, options: ScaleOptions) {
  const [optionId] = await createEvent(pool, admin, {
    title: 'Hot market of the order path',
    category: 'cricket',
    options: [{ label: 'Hot', liquidityCents: 100_000 }],
  });
  const tokens = await registerUsers([pool], options.traders, 'scaleload');
  const optionIds = [optionId as string];
  const seconds = options.orderSeconds;
  const singleLoad = load1();
  const single = await measureOrders([pool], tokens, optionIds, { concurrency: 64, seconds, batchSize: 1 });
  const batchLoad = load1();
  const batch = await measureOrders([pool], tokens, optionIds, { concurrency: 16, seconds, batchSize: 20 });
  return { single: { load: singleLoad, run: single }, batch: { load: batchLoad, run: batch } };
}

async function tableSizes(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; bytes: string; rows: string }>(
      `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes, c.reltuples::bigint AS rows FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 2 DESC`,
    );
    const total = await client.query<{ bytes: string }>(
      'SELECT pg_database_size(current_database()) AS bytes',
    );
    return {
      sizes: rows.map((row): [string, number, number] => [row.name, Number(row.bytes), Number(row.rows)]),
      databaseBytes: Number(total.rows[0]?.bytes),
    };
  } finally {
    await client.end();
  }
}

/** Migrates a new database, fills it when `fill` says so, then measures everything on one server started on it. */
async function side(options: ScaleOptions, fill: ((url: string) => Promise<void>) | null) {
  const prepare = async (url: string) => {
    const database = await openDatabase({ url, dataDir: null });
    try {
      await migrateToLatest(database.db);
    } finally {
      await database.close();
    }
    await fill?.(url);
  };
  const cluster = await startCluster(options.databaseUrl, 1, { prefix: 'pmx_scale', prepare });
  const pool = new Pool(cluster.urls[0] as string, { connections: 64 });
  try {
    const admin = await registerAdmin(pool);
    const s = await subjects(pool, admin, fill !== null);
    const reads = await measureReads(cluster, s, options);
    const orders = await measureOrderPath(pool, admin, options);
    const auditLoad = load1();
    const started = performance.now();
    const clean = await runAudit(cluster.databaseUrl);
    const audit = { ms: Math.round(performance.now() - started), clean, load: auditLoad };
    const sizes = fill ? await tableSizes(cluster.databaseUrl) : { sizes: [], databaseBytes: 0 };
    const result: ScaleSide = {
      startupMs: cluster.startupMs,
      startupCpuSeconds: cluster.startupCpuSeconds,
      reads,
      ...orders,
      audit,
    };
    return { result, ...sizes };
  } finally {
    await pool.close();
    await cluster.stop();
  }
}

export async function benchScale(options: ScaleOptions): Promise<ScaleResult> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(`  scale: the empty database`);
  const empty = await side(options, null);
  let year: BusyYear | null = null;
  let fillSeconds = 0;
  const passwordHash = await hashPassword(SCALE_PASSWORD);
  log(`  scale: filling a busy year at scale ${options.scale}`);
  const busy = await side(options, async (url) => {
    const started = performance.now();
    year = await fillBusyYear(url, options.scale, passwordHash, log);
    fillSeconds = Math.round((performance.now() - started) / 1000);
  });
  return {
    scale: options.scale,
    year,
    fillSeconds,
    empty: empty.result,
    busy: busy.result,
    sizes: busy.sizes,
    databaseBytes: busy.databaseBytes,
  };
}

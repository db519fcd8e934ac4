import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Pool } from 'undici';

/**
 * Durable orders per second through HTTP on one hot option: a real server process on PostgreSQL, many users
 * each with their own session, limit orders around the middle of the book (about half of them trade).
 * Every 201 is an order committed to the database.
 */
export interface HttpResult {
  instances: number;
  users: number;
  concurrency: number;
  seconds: number;
  orders: number;
  errors: number;
  ordersPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  auditClean: boolean;
}

export interface HttpBenchOptions {
  databaseUrl: string;
  users: number;
  concurrency: number;
  seconds: number;
  instances: number;
}

async function createDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

function startServer(port: number, databaseUrl: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '10000000',
      LOGIN_MAX_FAILURES: '1000',
      JOBS_ENABLED: 'false',
      SEED_DEMO: 'false',
      ADMIN_EMAIL: 'bench-admin@example.com',
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function waitReady(port: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server on ${port} did not become ready`);
}

async function json(pool: Pool, method: 'GET' | 'POST', path: string, token: string | null, body?: unknown) {
  const res = await pool.request({
    method,
    path,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : null };
}

/** Runs `task` for each item with at most `limit` at once. */
async function inBatches<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await task(items[next++] as T);
    }),
  );
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export async function benchHttp(options: HttpBenchOptions): Promise<HttpResult> {
  const database = await createDatabase(options.databaseUrl);
  const ports = Array.from(
    { length: options.instances },
    (_, i) => 41000 + Math.floor(Math.random() * 1000) * 10 + i,
  );
  const servers: ChildProcess[] = [];
  try {
    // Start the first instance alone so that it runs the migrations.
    servers.push(startServer(ports[0] as number, database.url));
    await waitReady(ports[0] as number);
    for (const port of ports.slice(1)) servers.push(startServer(port, database.url));
    for (const port of ports.slice(1)) await waitReady(port);
    const pools = ports.map(
      (port) => new Pool(`http://127.0.0.1:${port}`, { connections: options.concurrency }),
    );
    const first = pools[0] as Pool;

    const admin = await json(first, 'POST', '/api/auth/register', null, {
      email: 'bench-admin@example.com',
      password: 'bench password',
    });
    const market = await json(first, 'POST', '/api/admin/events', admin.body.token, {
      title: 'Hot market',
      category: 'cricket',
      closesAt: new Date(Date.now() + 86_400_000).toISOString(),
      options: [{ label: 'Hot', liquidityCents: 100_000 }],
      open: true,
    });
    const optionId: string = market.body.options[0].id;

    const tokens: string[] = [];
    await inBatches(
      Array.from({ length: options.users }, (_, i) => i),
      16,
      async (i) => {
        const res = await json(first, 'POST', '/api/auth/register', null, {
          email: `bench-${i}@example.com`,
          password: 'bench password',
        });
        tokens.push(res.body.token);
      },
    );

    const latencies: number[] = [];
    let orders = 0;
    let errors = 0;
    let seed = 1;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const deadline = Date.now() + options.seconds * 1000;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: options.concurrency }, async (_, worker) => {
        const pool = pools[worker % pools.length] as Pool;
        while (Date.now() < deadline) {
          const token = tokens[Math.floor(random() * tokens.length)] as string;
          const body = {
            optionId,
            side: random() < 0.5 ? 'YES' : 'NO',
            action: 'BUY',
            quantity: 1 + Math.floor(random() * 5),
            limitPriceCents: 45 + Math.floor(random() * 11),
          };
          const t0 = performance.now();
          const res = await json(pool, 'POST', '/api/limit-orders', token, body);
          latencies.push(performance.now() - t0);
          if (res.status === 201) orders++;
          else errors++;
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    await Promise.all(pools.map((pool) => pool.close()));

    const audit = spawn(process.execPath, ['--import', 'tsx', 'src/cli/audit.ts'], {
      env: { ...process.env, DATABASE_URL: database.url },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const auditClean = await new Promise<boolean>((resolve) =>
      audit.on('exit', (code) => resolve(code === 0)),
    );

    latencies.sort((a, b) => a - b);
    return {
      instances: options.instances,
      users: options.users,
      concurrency: options.concurrency,
      seconds: Math.round(seconds * 10) / 10,
      orders,
      errors,
      ordersPerSecond: Math.round(orders / seconds),
      p50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
      p99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
      auditClean,
    };
  } finally {
    for (const server of servers) server.kill('SIGTERM');
    await Promise.all(
      servers.map((s) => new Promise((r) => (s.exitCode !== null ? r(null) : s.on('exit', r)))),
    );
    await database.drop();
  }
}

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import pg from 'pg';
import { Pool } from 'undici';

/**
 * What the reliability scripts and the shutdown test share: a real server process, a throw-away PostgreSQL
 * database, and a small JSON client.
 */

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  /** Everything the process wrote to stdout and stderr. */
  output(): string;
  /** The JSON log lines the process wrote so far. */
  logLines(): Record<string, unknown>[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The key every server of one run seals webhook secrets with (production refuses to start without one). */
export const SECRETS_KEY = randomBytes(32).toString('base64');

/** Starts `src/server.ts` as production does, with the given environment on top of safe defaults. */
export function startServer(port: number, env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      REDIS_URL: '',
      SEED_DEMO: 'false',
      RATE_LIMIT_MAX: '10000000',
      LOGIN_MAX_FAILURES: '1000',
      SECRETS_KEY,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    port,
    output: () => output,
    logLines: () =>
      output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Record<string, unknown>];
          } catch {
            return [];
          }
        }),
    exited,
  };
}

export async function waitReady(server: ServerProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitedEarly = false;
  void server.exited.then(() => {
    exitedEarly = true;
  });
  while (Date.now() < deadline) {
    if (exitedEarly) throw new Error(`server exited before it was ready:\n${server.output().slice(-3000)}`);
    const ok = await fetch(`http://127.0.0.1:${server.port}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`server on port ${server.port} was not ready after ${timeoutMs} ms`);
}

export interface ThrowawayDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new, empty database on the PostgreSQL server of `adminUrl`; `drop` removes it. */
export async function createThrowawayDatabase(adminUrl: string, prefix: string): Promise<ThrowawayDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
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

export interface JsonResponse {
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** Milliseconds from sending to the last byte of the body. */
  ms: number;
}

/** A keep-alive JSON client for one server. */
/** The bootstrap token the services of these runs take while no account is admin (ADMIN_BOOTSTRAP_TOKEN). */
export const BOOTSTRAP_TOKEN = 'harness-bootstrap-token-0123456789abcdef';

export class Api {
  private readonly pool: Pool;

  /** `timeoutMs` bounds the wait for a response's headers and between its body's chunks (undici's default: 300 s). */
  constructor(port: number, connections: number, timeoutMs?: number) {
    this.pool = new Pool(`http://127.0.0.1:${port}`, {
      connections,
      pipelining: 1,
      ...(timeoutMs ? { headersTimeout: timeoutMs, bodyTimeout: timeoutMs } : {}),
    });
  }

  async request(
    method: 'GET' | 'POST' | 'DELETE' | 'PATCH' | 'PUT',
    path: string,
    options: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<JsonResponse> {
    const started = performance.now();
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await this.pool.request({
      method,
      path,
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
    const text = await response.body.text();
    let body: unknown = text;
    if ((response.headers['content-type'] ?? '').toString().includes('json') && text) body = JSON.parse(text);
    return { status: response.statusCode, body, headers: response.headers, ms: performance.now() - started };
  }

  /** The body of a successful request; anything else is an error with the status and body. */
  async ok<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    options: { token?: string | null; body?: unknown } = {},
  ): Promise<T> {
    const response = await this.request(method, path, options);
    if (response.status >= 300) {
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    }
    return response.body as T;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** Runs `task` for each item with at most `limit` running at once. */
export async function inParallel<T>(
  items: T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await task(item);
      }
    }),
  );
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** A small deterministic generator, so a run can be repeated with the same seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/** Runs `npm run audit` (the ledger invariants) on the database `env` names; resolves with its exit code and output. */
export async function runAudit(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const child = spawn('npm', ['run', '--silent', 'audit'], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, output };
}

/** Opens `count` cricket markets of two options (Home, Away) with house liquidity; returns their option ids. */
export async function openMarkets(
  api: Api,
  adminToken: string,
  count: number,
  title: string,
): Promise<string[]> {
  const optionIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const market = await api.ok<{ options: { id: string }[] }>('POST', '/api/admin/events', {
      token: adminToken,
      body: {
        title: `${title} ${i}`,
        category: 'cricket',
        closesAt: new Date(Date.now() + 86_400_000).toISOString(),
        options: [
          { label: 'Home', liquidityCents: 50_000 },
          { label: 'Away', liquidityCents: 50_000 },
        ],
        open: true,
      },
    });
    optionIds.push(...market.options.map((option) => option.id));
  }
  return optionIds;
}

/** Prints a run's verdict (its failures, or that it passed) and returns the exit code: 1 on any failure. */
export function verdict(name: string, failures: string[], log: (line: string) => void): number {
  if (failures.length > 0) {
    log(`\nFAILED (${failures.length}):\n  ${failures.slice(0, 50).join('\n  ')}`);
    return 1;
  }
  log(`\n${name} passed`);
  return 0;
}

/**
 * A random order of the load scripts' mix: a market order (a trade at a worst price of 90 to buy or 10 to sell) or
 * a limit order priced 35 to 64; `roll` picks the kind and the direction, `random` the side, size and price.
 */
export function randomOrder(
  random: () => number,
  roll: { market: boolean; sell: boolean },
  optionId: string,
  clientOrderId: string,
): { path: '/api/trades' | '/api/limit-orders'; body: Record<string, unknown> } {
  const side = random() < 0.5 ? 'YES' : 'NO';
  const action = roll.sell ? 'SELL' : 'BUY';
  const quantity = 1 + Math.floor(random() * 5);
  const order = { optionId, side, action, quantity, clientOrderId };
  return roll.market
    ? { path: '/api/trades', body: { ...order, priceCents: action === 'BUY' ? 90 : 10 } }
    : { path: '/api/limit-orders', body: { ...order, limitPriceCents: 35 + Math.floor(random() * 30) } };
}

/** Registers the run's operator and makes it admin with the bootstrap token; its session token. */
export async function registerOperator(api: Api, email: string, password: string): Promise<string> {
  const admin = await api.ok<{ token: string }>('POST', '/api/auth/register', { body: { email, password } });
  await api.ok('POST', '/api/auth/admin-bootstrap', { token: admin.token, body: { token: BOOTSTRAP_TOKEN } });
  return admin.token;
}

import { mkdirSync, writeFileSync } from 'node:fs';
import { benchEngine } from './engine.js';
import { benchHttp } from './http.js';

/**
 * The benchmark suite. Prints a table and writes bench/results/latest.json.
 *   BENCH_DATABASE_URL  PostgreSQL to create throw-away databases on (default the local test server)
 *   BENCH_SECONDS       length of each HTTP run (default 15)
 *   BENCH_USERS         traders (default 1000)
 *   BENCH_CONCURRENCY   requests in flight (default 64)
 *   BENCH_ONLY          comma-separated subset: engine,http
 */
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const users = Number(process.env.BENCH_USERS ?? 1000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 64);
const only = new Set((process.env.BENCH_ONLY ?? 'engine,http').split(','));

const results: Record<string, unknown> = { startedAt: new Date().toISOString(), node: process.version };
const rows: [string, string, string][] = [];

if (only.has('engine')) {
  const engine = benchEngine();
  results.engine = engine;
  rows.push(['engine core, limit orders/s', engine.oursOrdersPerSecond.toLocaleString('en'), '']);
  rows.push([
    'nodejs-order-book, same stream, orders/s',
    engine.peerOrdersPerSecond.toLocaleString('en'),
    `ours ÷ peer = ${engine.ratio}×`,
  ]);
}

if (only.has('http')) {
  const http = await benchHttp({ databaseUrl, users, concurrency, seconds, instances: 1 });
  results.http = http;
  rows.push([
    `HTTP durable orders/s, 1 instance, ${http.users} users`,
    http.ordersPerSecond.toLocaleString('en'),
    `p50 ${http.p50Ms} ms, p99 ${http.p99Ms} ms, ${http.errors} errors, audit ${http.auditClean ? 'clean' : 'FAILED'}`,
  ]);
}

const width = Math.max(...rows.map((r) => r[0].length));
process.stdout.write('\n');
for (const [name, value, note] of rows)
  process.stdout.write(`${name.padEnd(width)}  ${value.padStart(12)}  ${note}\n`);
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/latest.json', `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write('\nwritten to bench/results/latest.json\n');

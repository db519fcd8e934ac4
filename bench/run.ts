import { mkdirSync, writeFileSync } from 'node:fs';
import { buildServer } from '../scripts/build.js';
import { benchCandles } from './candles.js';
import { benchHttp, type HttpResult } from './http.js';
import { benchReads, type ReadRun } from './reads.js';
import { benchStream } from './stream.js';

/**
 * The benchmark suite. Prints one table (figure, target, met or not) and writes bench/results/latest.json.
 *
 *   engine  the matching core against nodejs-order-book on the same stream of limit orders
 *   http    (a) durable limit orders through HTTP on one hot option: 1 server process on PostgreSQL,
 *           BENCH_USERS users, BENCH_CONCURRENCY requests in flight; orders/s, p50/p99, ledger audit after
 *   http2   (b) the same with 2 server processes on one database, the load split evenly over both
 *   spread  (h) case (a)'s single orders spread at random over BENCH_MARKETS independent markets instead of one
 *   batch   (g) the same orders sent as market makers send them: batches of BENCH_BATCH_SIZE limit orders
 *           (POST /api/limit-orders/batch), BENCH_BATCH_CONCURRENCY batches in flight, 1 server process; durable
 *           orders/s, p50/p99 per batch, ledger audit after
 *   makers  (i) many makers on many markets: 2 server processes on one database, BENCH_MARKETS independent
 *           markets and 3 exclusive events, BENCH_MAKERS makers each in a loop (pull its quotes with cancel-all, or
 *           amend some of them; then quote both sides of 10 random markets in one batch of 20) and BENCH_TAKERS
 *           takers sending single limit (IOC) and market orders to random markets; placed orders/s, cancels/s,
 *           fills/s, p50/p99 per batch, cancel-all, amend and single order, every refusal, deadlocks, the audit
 *   reads   (c) GET /api/events and GET /api/orderbook/{optionId} (rotating over every option) on 1 server
 *           process with 36 open events, ~90 options, a few hundred resting orders and some trades;
 *           requests/s and p50/p99 measured with autocannon
 *   candles (f) GET /api/options/{id}/candles of an option with 100,000 trades (1m, 1h and 1d in rotation), warm,
 *           on 1 server process; requests/s and p50/p99 measured with autocannon
 *   stream  (e) BENCH_SUBSCRIBERS WebSocket subscribers on /api/stream, spread over BENCH_STREAM_INSTANCES
 *           server processes, each on the book and trades channels of four options, while orders that
 *           fill are placed over HTTP at BENCH_STREAM_RATE; latency from each order's sending (and from its
 *           response, and from the fill's server timestamp) to every subscriber's receipt of its message
 * Every server process's resident memory is sampled every 250 ms during each HTTP, read and stream run, and
 * the highest is reported per run.
 * The exit code is 1 when a case could not run at all; a target that is not met does not fail the run.
 *
 * Environment:
 *   BENCH_ONLY              comma-separated subset of engine,http,http2,reads,candles,stream (default: all)
 *   BENCH_DATABASE_URL      PostgreSQL to create throw-away databases on
 *                           (default postgres://postgres@127.0.0.1:5432/test)
 *   BENCH_SECONDS           length of each measured run: each HTTP run, each read endpoint, the stream (default 15)
 *   BENCH_USERS             traders in http and http2 (default 1000)
 *   BENCH_CONCURRENCY       order requests in flight in http and http2 (default 64)
 *   BENCH_BATCH_SIZE        orders per batch in batch (default 20)
 *   BENCH_BATCH_CONCURRENCY batches in flight in batch (default 16)
 *   BENCH_MARKETS           independent markets in spread and makers (default 50)
 *   BENCH_MAKERS            makers in makers (default 16)
 *   BENCH_TAKERS            takers in makers (default 200)
 *   BENCH_READ_CONNECTIONS  keep-alive connections of the read load (default 16)
 *   BENCH_READ_PIPELINING   requests in flight on each of them, HTTP pipelining (default 4)
 *   BENCH_READ_WORKERS      worker threads of the read load; 0 runs it on the main thread (default 0)
 *   BENCH_SUBSCRIBERS       WebSocket subscribers in stream (default 1000)
 *   BENCH_STREAM_RATE       orders per second placed during stream (default 20)
 *   BENCH_STREAM_INSTANCES  server processes in stream (default 2)
 *   BENCH_SCALE             size of the busy year in scale, 1 = 200,000 users, 10 million orders (default 1)
 *   BENCH_SCALE_READ_SECONDS  length of each read's run in scale (default 5)
 *   BENCH_SCALE_CONNECTIONS keep-alive connections of each read's run in scale (default 4)
 *   BENCH_SCALE_TRADERS     users placing orders in scale's order path (default 100)
 *
 *   scale   a busy year: the same reads of a user and a bot, case (a)'s and (g)'s order path, start-up and the
 *           audit on an empty database and on one filled with a year of trading, side by side with the ratio;
 *           the busy database's size per table
 */
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const seconds = env('BENCH_SECONDS', 15);
const users = env('BENCH_USERS', 1000);
const concurrency = env('BENCH_CONCURRENCY', 64);
const batchSize = env('BENCH_BATCH_SIZE', 20);
const batchConcurrency = env('BENCH_BATCH_CONCURRENCY', 16);
const CASES = ['engine', 'http', 'http2', 'spread', 'batch', 'makers', 'reads', 'candles', 'stream', 'scale'];
const only = new Set((process.env.BENCH_ONLY ?? CASES.join(',')).split(',').map((s) => s.trim()));
for (const name of only) if (!CASES.includes(name)) throw new Error(`BENCH_ONLY: unknown case "${name}"`);

const TARGETS = {
  ordersPerSecond: 5000,
  orderP99Ms: 50,
  /** Batches: the target, and the bar below which the case has failed its purpose. */
  batchOrdersPerSecond: 10_000,
  batchOrdersPerSecondBar: 5_000,
  batchP99Ms: 50,
  /** Many makers on many markets: placed orders/s with their cancels, and the bar. */
  makersOrdersPerSecond: 5_000,
  makersOrdersPerSecondBar: 3_000,
  makersP99Ms: 50,
  makersP99MsBar: 100,
  /** Spread single orders: at least case (a)'s figure in the same run, and the bar. */
  spreadOrdersPerSecondBar: 2_000,
  readsPerSecond: 20_000,
  candlesPerSecond: 5_000,
  streamP99Ms: 100,
  /** A busy year: each read and the order path at most this many times slower than on an empty database. */
  scaleRatio: 1.5,
  scaleReadP99Ms: 50,
  scaleStartupMs: 10_000,
  rssMb: 256,
  engineOrdersPerSecond: 1_000_000,
};

interface Row {
  name: string;
  figure: string;
  target: string;
  /** null: no target for this row. */
  met: boolean | null;
}

const results: Record<string, unknown> = {
  startedAt: new Date().toISOString(),
  node: process.version,
  settings: { seconds, users, concurrency, batchSize, batchConcurrency },
  targets: TARGETS,
};
const rows: Row[] = [];
await buildServer();
let failed = false;
const n = (x: number) => x.toLocaleString('en');
const mb = (list: number[]) => Math.max(0, ...list);

function memoryRow(label: string, maxRssMb: number[]) {
  rows.push({
    name: `${label}: max server RSS`,
    figure: `${n(mb(maxRssMb))} MB${maxRssMb.length > 1 ? ` (${maxRssMb.join(' / ')})` : ''}`,
    target: `< ${TARGETS.rssMb} MB`,
    met: mb(maxRssMb) < TARGETS.rssMb,
  });
}

async function runCase(name: string, body: () => Promise<void>) {
  if (!only.has(name)) return;
  process.stdout.write(`running ${name}…\n`);
  try {
    await body();
  } catch (error) {
    failed = true;
    const message = error instanceof Error ? error.message : String(error);
    results[name] = { error: message };
    rows.push({ name: `${name}: did not complete`, figure: message.slice(0, 60), target: '', met: false });
  }
}

function httpRows(label: string, http: HttpResult, ordersTarget: number, ordersTargetText: string) {
  rows.push({
    name: `${label}: durable orders/s (${http.instances} instance${http.instances > 1 ? 's' : ''}, ${n(http.users)} users)`,
    figure: n(http.ordersPerSecond),
    target: ordersTargetText,
    met: http.ordersPerSecond >= ordersTarget,
  });
  const per = http.batchSize > 1 ? `batch of ${http.batchSize}` : 'order';
  rows.push({
    name: `${label}: latency per ${per} p50 / p99`,
    figure: `${http.p50Ms} / ${http.p99Ms} ms`,
    target: `p99 < ${TARGETS.orderP99Ms} ms`,
    met: http.p99Ms < TARGETS.orderP99Ms,
  });
  rows.push({
    name: `${label}: errors, audit after the run`,
    figure: `${n(http.errors)}, ${http.auditClean ? 'clean' : 'FAILED'}`,
    target: '0, clean',
    met: http.errors === 0 && http.auditClean,
  });
  const { cpu } = http;
  rows.push({
    name: `${label}: CPU per order: server / load generator / PostgreSQL`,
    figure: `${cpu.serverUs.join(' + ')} / ${cpu.generatorUs} / ${cpu.postgresUs} µs`,
    target: '',
    met: null,
  });
  rows.push({
    name: `${label}: CPU used: server / load generator / PostgreSQL`,
    figure: `${cpu.serverPercent.map((p) => `${p}%`).join(' + ')} / ${cpu.generatorPercent}% / ${cpu.postgresPercent}%`,
    target: '',
    met: null,
  });
  const { steps } = http;
  const order = ['lock', 'hold', 'decide_write', 'answer', 'announce', 'commit'];
  rows.push({
    name: `${label}: µs per order in its transaction: ${order.join(', ')}`,
    figure: order.map((step) => steps[step] ?? 0).join(' / '),
    target: '',
    met: null,
  });
  rows.push({
    name: `${label}: per transaction: requests, markets`,
    figure: `${steps.requestsPerTransaction ?? 0} / ${steps.marketsPerTransaction ?? 0}`,
    target: '',
    met: null,
  });
  memoryRow(label, http.maxRssMb);
}

function makersRows(m: import('./makers.js').MakersResult) {
  const label = `i. makers (${m.makers} makers, ${m.takers} takers, ${m.markets} markets + ${m.exclusiveEvents} exclusive, 2 instances)`;
  const {
    makersOrdersPerSecond: target,
    makersOrdersPerSecondBar: bar,
    makersP99Ms,
    makersP99MsBar,
  } = TARGETS;
  rows.push({
    name: `${label}: placed orders/s (cancels/s, fills/s)`,
    figure: `${n(m.placedPerSecond)} (${n(m.cancelsPerSecond)}, ${n(m.fillsPerSecond)})`,
    target: `≥ ${n(target)} (bar ${n(bar)})`,
    met: m.placedPerSecond >= target,
  });
  rows.push({
    name: 'i. makers: at least the bar',
    figure: n(m.placedPerSecond),
    target: `≥ ${n(bar)}`,
    met: m.placedPerSecond >= bar,
  });
  for (const [kind, latency] of [
    ['batch of 20', m.batch],
    ['cancel-all', m.cancelAll],
    ['amend', m.amend],
    ['single order', m.single],
  ] as const)
    rows.push({
      name: `i. makers: ${kind} p50 / p99 (${n(latency.count)})`,
      figure: `${latency.p50Ms} / ${latency.p99Ms} ms`,
      target: `p99 < ${makersP99Ms} ms (bar ${makersP99MsBar})`,
      met: latency.p99Ms < makersP99Ms,
    });
  const refusals = Object.entries(m.refusals);
  const failing = refusals.filter(
    ([key]) => key.startsWith('5') || key.includes('OPTION_BUSY') || key.startsWith('0'),
  );
  rows.push({
    name: 'i. makers: refusals (status code: count)',
    figure: refusals.length ? refusals.map(([key, count]) => `${key}: ${n(count)}`).join(', ') : 'none',
    target: 'no 5xx, no OPTION_BUSY',
    met: failing.length === 0,
  });
  rows.push({
    name: 'i. makers: deadlocks, audit after the run',
    figure: `${m.deadlocks}, ${m.auditClean ? 'clean' : 'FAILED'}`,
    target: '0, clean',
    met: m.deadlocks === 0 && m.auditClean,
  });
  rows.push({
    name: 'i. makers: CPU per placed order: servers / load generator / PostgreSQL',
    figure: `${m.cpu.serverUs.join(' + ')} / ${m.cpu.generatorUs} / ${m.cpu.postgresUs} µs`,
    target: '',
    met: null,
  });
  const order = ['lock', 'hold', 'decide_write', 'answer', 'announce', 'commit'];
  rows.push({
    name: `i. makers: µs per request in its transaction: ${order.join(', ')}`,
    figure: order.map((step) => m.steps[step] ?? 0).join(' / '),
    target: '',
    met: null,
  });
  rows.push({
    name: 'i. makers: per transaction: requests, markets',
    figure: `${m.steps.requestsPerTransaction} / ${m.steps.marketsPerTransaction}`,
    target: '',
    met: null,
  });
  memoryRow('i. makers', m.maxRssMb);
}

await runCase('engine', async () => {
  // After the build: it runs the compiled core.
  const { benchEngine } = await import('./engine.js');
  const engine = benchEngine();
  results.engine = engine;
  rows.push({
    name: 'd. engine: matching core, limit orders/s',
    figure: n(engine.oursOrdersPerSecond),
    target: `≥ ${n(TARGETS.engineOrdersPerSecond)}`,
    met: engine.oursOrdersPerSecond >= TARGETS.engineOrdersPerSecond,
  });
  rows.push({
    name: 'd. engine: the whole decision (house maker, batches of 32): orders/s',
    figure: n(engine.decisionOrdersPerSecond),
    target: `≥ ${n(TARGETS.engineOrdersPerSecond)}`,
    met: engine.decisionOrdersPerSecond >= TARGETS.engineOrdersPerSecond,
  });
  rows.push({
    name: 'nodejs-order-book, same stream: orders/s',
    figure: `${n(engine.peerOrdersPerSecond)} (ours ÷ peer ${engine.ratio}×)`,
    target: '',
    met: null,
  });
});

let single: HttpResult | null = null;
await runCase('http', async () => {
  single = await benchHttp({ databaseUrl, users, concurrency, seconds, instances: 1, batchSize: 1 });
  results.http = single;
  httpRows('a. HTTP', single, TARGETS.ordersPerSecond, `≥ ${n(TARGETS.ordersPerSecond)}`);
});

await runCase('http2', async () => {
  const http2 = await benchHttp({ databaseUrl, users, concurrency, seconds, instances: 2, batchSize: 1 });
  results.http2 = http2;
  const base = single as HttpResult | null;
  httpRows(
    'b. HTTP',
    http2,
    base ? base.ordersPerSecond : TARGETS.ordersPerSecond,
    base ? `≥ a (${n(base.ordersPerSecond)})` : `≥ ${n(TARGETS.ordersPerSecond)} (a not run)`,
  );
});

await runCase('batch', async () => {
  const batch = await benchHttp({
    databaseUrl,
    users,
    concurrency: batchConcurrency,
    seconds,
    instances: 1,
    batchSize,
  });
  results.batch = batch;
  const { batchOrdersPerSecond: target, batchOrdersPerSecondBar: bar } = TARGETS;
  httpRows(`g. batches of ${batchSize}`, batch, target, `≥ ${n(target)} (bar ${n(bar)})`);
  rows.push({
    name: `g. batches of ${batchSize}: at least the bar`,
    figure: n(batch.ordersPerSecond),
    target: `≥ ${n(bar)}`,
    met: batch.ordersPerSecond >= bar,
  });
});

await runCase('spread', async () => {
  const markets = env('BENCH_MARKETS', 50);
  const spread = await benchHttp({
    databaseUrl,
    users,
    concurrency,
    seconds,
    instances: 1,
    batchSize: 1,
    markets,
  });
  results.spread = spread;
  const base = single as HttpResult | null;
  const target = base ? base.ordersPerSecond : TARGETS.spreadOrdersPerSecondBar;
  httpRows(
    `h. HTTP over ${markets} markets`,
    spread,
    target,
    base
      ? `≥ a (${n(base.ordersPerSecond)}), bar ${n(TARGETS.spreadOrdersPerSecondBar)}`
      : `≥ ${n(target)} (a not run)`,
  );
  rows.push({
    name: `h. HTTP over ${markets} markets: at least the bar`,
    figure: n(spread.ordersPerSecond),
    target: `≥ ${n(TARGETS.spreadOrdersPerSecondBar)}`,
    met: spread.ordersPerSecond >= TARGETS.spreadOrdersPerSecondBar,
  });
});

await runCase('makers', async () => {
  const { benchMakers } = await import('./makers.js');
  const makers = await benchMakers({
    databaseUrl,
    seconds: env('BENCH_MAKERS_SECONDS', Math.max(seconds, 30)),
    markets: env('BENCH_MARKETS', 50),
    makers: env('BENCH_MAKERS', 16),
    takers: env('BENCH_TAKERS', 200),
  });
  results.makers = makers;
  makersRows(makers);
});

await runCase('reads', async () => {
  const reads = await benchReads({
    databaseUrl,
    seconds,
    connections: env('BENCH_READ_CONNECTIONS', 16),
    pipelining: env('BENCH_READ_PIPELINING', 4),
    workers: env('BENCH_READ_WORKERS', 0),
  });
  results.reads = reads;
  const readRows = (label: string, run: ReadRun) => {
    rows.push({
      name: `c. ${label}: requests/s`,
      figure: n(run.requestsPerSecond),
      target: `≥ ${n(TARGETS.readsPerSecond)}`,
      met: run.requestsPerSecond >= TARGETS.readsPerSecond,
    });
    rows.push({
      name: `c. ${label}: p50 / p99, errors`,
      figure: `${run.p50Ms} / ${run.p99Ms} ms, ${n(run.errors)}`,
      target: '0 errors',
      met: run.errors === 0,
    });
    rows.push({
      name: `c. ${label}: CPU server / load generator`,
      figure: `${run.serverCpuPercent}% / ${run.generatorCpuPercent}%`,
      target: '',
      met: null,
    });
  };
  readRows('GET /api/events', reads.list);
  readRows('GET /api/orderbook/{id}', reads.orderbook);
  memoryRow('c. reads', [Math.max(mb(reads.list.maxRssMb), mb(reads.orderbook.maxRssMb))]);
});

await runCase('candles', async () => {
  const candles = await benchCandles({
    databaseUrl,
    seconds,
    connections: env('BENCH_READ_CONNECTIONS', 16),
    pipelining: env('BENCH_READ_PIPELINING', 4),
    workers: env('BENCH_READ_WORKERS', 0),
  });
  results.candles = candles;
  const { run } = candles;
  const label = `f. candles, ${n(candles.trades)} trades (${n(candles.candleRows)} candle rows)`;
  rows.push({
    name: `${label}: requests/s`,
    figure: n(run.requestsPerSecond),
    target: `≥ ${n(TARGETS.candlesPerSecond)}`,
    met: run.requestsPerSecond >= TARGETS.candlesPerSecond,
  });
  rows.push({
    name: 'f. candles: p50 / p99, errors',
    figure: `${run.p50Ms} / ${run.p99Ms} ms, ${n(run.errors)}`,
    target: '0 errors',
    met: run.errors === 0,
  });
  rows.push({
    name: 'f. candles: mean response, CPU server / load generator',
    figure: `${n(run.responseBytes)} B, ${run.serverCpuPercent}% / ${run.generatorCpuPercent}%`,
    target: '',
    met: null,
  });
  memoryRow('f. candles', run.maxRssMb);
});

await runCase('stream', async () => {
  const stream = await benchStream({
    databaseUrl,
    seconds,
    instances: env('BENCH_STREAM_INSTANCES', 2),
    subscribers: env('BENCH_SUBSCRIBERS', 1000),
    ordersPerSecond: env('BENCH_STREAM_RATE', 20),
  });
  results.stream = stream;
  const { trades, book } = stream;
  rows.push({
    name: `e. stream: trade message from order sent, p50 / p99`,
    figure: `${trades.fromSend.p50Ms} / ${trades.fromSend.p99Ms} ms`,
    target: `p99 < ${TARGETS.streamP99Ms} ms`,
    met: trades.fromSend.p99Ms < TARGETS.streamP99Ms,
  });
  rows.push({
    name: `e. stream: trade message from response, p50 / p99`,
    figure: `${trades.fromResponse.p50Ms} / ${trades.fromResponse.p99Ms} ms`,
    target: '',
    met: null,
  });
  rows.push({
    name: `e. stream: trade message from fill timestamp, p50 / p99`,
    figure: `${trades.fromFillTimestamp.p50Ms} / ${trades.fromFillTimestamp.p99Ms} ms`,
    target: '',
    met: null,
  });
  rows.push({
    name: `e. stream: book delta from order sent, p50 / p99`,
    figure: `${book.fromSend.p50Ms} / ${book.fromSend.p99Ms} ms`,
    target: '',
    met: null,
  });
  rows.push({
    name: `e. stream: messages received / expected (${n(stream.connected)} subscribers)`,
    figure: `${n(trades.received + book.received)} / ${n(trades.expected + book.expected)}`,
    target: 'all',
    met:
      trades.received === trades.expected &&
      book.received === book.expected &&
      stream.connected === stream.subscribers,
  });
  rows.push({
    name: `e. stream: orders placed (${stream.instances} instance${stream.instances > 1 ? 's' : ''})`,
    figure: `${stream.ordersPerSecond}/s, p99 ${stream.orderP99Ms} ms`,
    target: `${stream.targetOrdersPerSecond}/s`,
    met: null,
  });
  rows.push({
    name: "e. stream: CPU of the subscribers' process",
    figure: `${stream.clientCpuPercent}%`,
    target: '',
    met: null,
  });
  memoryRow('e. stream', stream.maxRssMb);
});

await runCase('scale', async () => {
  const { benchScale } = await import('./scale.js');
  const { scaleRows } = await import('./scale-rows.js');
  const scale = await benchScale({
    databaseUrl,
    scale: env('BENCH_SCALE', 1),
    readSeconds: env('BENCH_SCALE_READ_SECONDS', 5),
    orderSeconds: seconds,
    connections: env('BENCH_SCALE_CONNECTIONS', 4),
    traders: env('BENCH_SCALE_TRADERS', 100),
  });
  results.scale = scale;
  rows.push(...scaleRows(scale, TARGETS));
});

results.table = rows;
const header: Row = { name: 'case', figure: 'figure', target: 'target', met: null };
const metText = (row: Row) => (row === header ? 'met' : row.met === null ? '' : row.met ? 'met' : 'NOT MET');
const all = [header, ...rows];
const widths = [
  Math.max(...all.map((r) => r.name.length)),
  Math.max(...all.map((r) => r.figure.length)),
  Math.max(...all.map((r) => r.target.length)),
];
process.stdout.write('\n');
for (const row of all) {
  const line = `${row.name.padEnd(widths[0] as number)}  ${row.figure.padStart(widths[1] as number)}  ${row.target.padEnd(widths[2] as number)}  ${metText(row)}`;
  process.stdout.write(`${line.trimEnd()}\n`);
  if (row === header) process.stdout.write(`${'-'.repeat(line.trimEnd().length)}\n`);
}
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/latest.json', `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write('\nwritten to bench/results/latest.json\n');
if (failed) process.exitCode = 1;

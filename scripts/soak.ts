import {
  Api,
  BOOTSTRAP_TOKEN,
  createThrowawayDatabase,
  freePort,
  inParallel,
  type JsonResponse,
  percentile,
  registerOperator,
  runAudit,
  seededRandom,
  startServer,
  waitReady,
} from './lib/harness.js';

/**
 * A soak: steady mixed load (reads, orders, cancels, market trades, logins) on PostgreSQL against a real server
 * process. Every minute it prints the requests, latency p50/p99, errors, and the server's memory from /metrics
 * (resident set and V8 heap in use, sampled every 5 seconds). It fails on any error (a 5xx, a lost connection, or
 * a 4xx that is not a business rule) and on a clear upward memory trend: the least-squares slope, over the minutes
 * after the warm-up, of each minute's lowest heap (what survives garbage collection) or lowest resident set. The
 * trend needs at least three minutes after the warm-up to be judged.
 *
 *   SOAK_MINUTES               length of the run (default 10)
 *   SOAK_RPS                   target requests per second (default 40: steady, not a benchmark)
 *   SOAK_USERS                 traders (default 50)
 *   SOAK_DATABASE_URL          PostgreSQL server to create a throw-away database on (default the local test server)
 *   SOAK_WARMUP_MINUTES        samples left out of the trend (default 2, or 0 for runs under 4 minutes)
 *   SOAK_MAX_HEAP_SLOPE_MB     heap growth per minute that fails the run (default 1)
 *   SOAK_MAX_RSS_SLOPE_MB      resident-set growth per minute that fails the run (default 4)
 */

const minutes = Number(process.env.SOAK_MINUTES ?? 10);
const rps = Number(process.env.SOAK_RPS ?? 40);
const userCount = Number(process.env.SOAK_USERS ?? 50);
const adminUrl = process.env.SOAK_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const warmupMinutes = Number(process.env.SOAK_WARMUP_MINUTES ?? (minutes >= 4 ? 2 : 0));
const maxHeapSlope = Number(process.env.SOAK_MAX_HEAP_SLOPE_MB ?? 1);
const maxRssSlope = Number(process.env.SOAK_MAX_RSS_SLOPE_MB ?? 4);
const SAMPLE_EVERY_MS = 5_000;
const ADMIN = 'soak-admin@example.com';
const PASSWORD = 'soak trader password';

/** 402 and 409 are the exchange's rules at work (not enough cash or shares, no liquidity, order not open). */
const RULE_STATUSES = new Set([402, 409]);

interface Trader {
  email: string;
  token: string;
  openOrders: string[];
}

interface Completed {
  at: number;
  ms: number;
  status: number | null;
  what: string;
}

interface MemorySample {
  at: number;
  rssMb: number;
  heapMb: number;
}

const random = seededRandom(Number(process.env.SOAK_SEED ?? 42));
const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)] as T;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<number> {
  log(`soak: ${minutes} min at ~${rps} requests/s, ${userCount} traders, PostgreSQL`);
  const database = await createThrowawayDatabase(adminUrl, 'soak');
  const port = await freePort();
  const server = startServer(port, {
    DATABASE_URL: database.url,
    ADMIN_BOOTSTRAP_TOKEN: BOOTSTRAP_TOKEN,
    JOBS_ENABLED: 'true',
    JOB_INTERVAL_MS: '1000',
  });
  try {
    await waitReady(server);
    const api = new Api(port, 16);
    const { traders, slugs, optionIds } = await prepare(api);
    const completed: Completed[] = [];
    const samples: MemorySample[] = [];
    const errors: string[] = [];
    const started = Date.now();
    const deadline = started + minutes * 60_000;

    const sampler = (async () => {
      while (Date.now() < deadline) {
        samples.push(await memory(api));
        await sleep(Math.min(SAMPLE_EVERY_MS, Math.max(0, deadline - Date.now())));
      }
      samples.push(await memory(api));
    })();

    // Open-loop pacing: each request takes the next slot of a shared schedule, so the rate stays steady.
    let nextSlot = performance.now();
    const gap = 1000 / rps;
    const workers = Array.from({ length: Math.max(4, Math.ceil(rps / 5)) }, async () => {
      while (Date.now() < deadline) {
        const slot = nextSlot;
        nextSlot += gap;
        const wait = slot - performance.now();
        if (wait > 0) await sleep(wait);
        const result = await step(api, traders, slugs, optionIds);
        completed.push(result);
        if (result.status === null || result.status >= 500) {
          errors.push(`${result.what}: ${result.status ?? 'connection lost'}`);
        } else if (result.status >= 400 && !RULE_STATUSES.has(result.status)) {
          errors.push(`${result.what}: ${result.status}`);
        }
      }
    });
    await Promise.all([...workers, sampler]);

    const audit = await runAudit({ DATABASE_URL: database.url });
    const ok = report(started, completed, samples, errors, audit.code === 0);
    await api.close();
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    if (exit.code !== 0) log(`the server exited with ${exit.code} on SIGTERM`);
    return ok && exit.code === 0 ? 0 : 1;
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await database.drop();
  }
}

async function prepare(api: Api): Promise<{ traders: Trader[]; slugs: string[]; optionIds: string[] }> {
  const admin = { token: await registerOperator(api, ADMIN, 'soak admin password') };
  const slugs: string[] = [];
  const optionIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const market = await api.ok<{ slug: string; options: { id: string }[] }>('POST', '/api/admin/events', {
      token: admin.token,
      body: {
        title: `Soak market ${i}`,
        category: 'cricket',
        closesAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
        options: [
          { label: 'Home', liquidityCents: 100_000 },
          { label: 'Away', liquidityCents: 100_000 },
        ],
        open: true,
      },
    });
    slugs.push(market.slug);
    optionIds.push(...market.options.map((option) => option.id));
  }
  const traders: Trader[] = [];
  await inParallel(
    Array.from({ length: userCount }, (_, i) => i),
    4,
    async (i) => {
      const email = `soak-${i}@example.com`;
      const user = await api.ok<{ token: string }>('POST', '/api/auth/register', {
        body: { email, password: PASSWORD },
      });
      traders.push({ email, token: user.token, openOrders: [] });
    },
  );
  return { traders, slugs, optionIds };
}

/** One request of the mix. */
async function step(api: Api, traders: Trader[], slugs: string[], optionIds: string[]): Promise<Completed> {
  const trader = pick(traders);
  const token = trader.token;
  const roll = random();
  let what: string;
  let run: () => Promise<JsonResponse>;
  if (roll < 0.35) {
    const read = pick([
      ['events', '/api/events'],
      ['event', `/api/events/${pick(slugs)}`],
      ['orderbook', `/api/orderbook/${pick(optionIds)}`],
      ['positions', '/api/positions'],
      ['trades', '/api/trades?limit=20'],
      ['orders', '/api/limit-orders?status=open'],
      ['notifications', '/api/me/notifications'],
      ['leaderboard', '/api/leaderboard'],
    ] as const);
    what = `GET ${read[0]}`;
    run = () => api.request('GET', read[1], { token });
  } else if (roll < 0.7) {
    const action = random() < 0.3 ? 'SELL' : 'BUY';
    what = `limit ${action}`;
    run = () =>
      api.request('POST', '/api/limit-orders', {
        token,
        body: {
          optionId: pick(optionIds),
          side: random() < 0.5 ? 'YES' : 'NO',
          action,
          quantity: 1 + Math.floor(random() * 5),
          limitPriceCents: 30 + Math.floor(random() * 40),
          ...(random() < 0.3 ? { expiresInHours: 1 } : {}),
        },
      });
  } else if (roll < 0.8) {
    const action = random() < 0.4 ? 'SELL' : 'BUY';
    what = `trade ${action}`;
    run = () =>
      api.request('POST', '/api/trades', {
        token,
        body: {
          optionId: pick(optionIds),
          side: random() < 0.5 ? 'YES' : 'NO',
          action,
          quantity: 1 + Math.floor(random() * 3),
          priceCents: action === 'BUY' ? 90 : 10,
        },
      });
  } else if (roll < 0.97) {
    const orderId = trader.openOrders.shift();
    if (orderId === undefined) {
      what = 'GET positions';
      run = () => api.request('GET', '/api/positions', { token });
    } else {
      what = 'cancel';
      run = () => api.request('DELETE', `/api/limit-orders/${orderId}`, { token });
    }
  } else {
    what = 'login';
    run = () => api.request('POST', '/api/auth/login', { body: { email: trader.email, password: PASSWORD } });
  }
  const at = Date.now();
  try {
    const response = await run();
    const body = response.body as { id?: string; status?: string; token?: string };
    if (what.startsWith('limit') && response.status === 201 && body.id) {
      if (body.status === 'open' || body.status === 'partially_filled') trader.openOrders.push(body.id);
    }
    if (what === 'login' && response.status === 200 && body.token) trader.token = body.token;
    return { at, ms: response.ms, status: response.status, what };
  } catch {
    return { at, ms: Date.now() - at, status: null, what };
  }
}

async function memory(api: Api): Promise<MemorySample> {
  const response = await api.request('GET', '/metrics');
  const text = String(response.body);
  const gauge = (name: string) => {
    const match = new RegExp(`^${name} ([0-9.e+]+)`, 'm').exec(text);
    return match ? Number(match[1]) / 1024 / 1024 : Number.NaN;
  };
  return {
    at: Date.now(),
    rssMb: gauge('process_resident_memory_bytes'),
    heapMb: gauge('nodejs_heap_size_used_bytes'),
  };
}

/** Least-squares slope of y over x. */
function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

function report(
  started: number,
  completed: Completed[],
  samples: MemorySample[],
  errors: string[],
  auditClean: boolean,
): boolean {
  const rows: string[][] = [
    ['minute', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'rejected', 'RSS MB', 'heap MB (low)'],
  ];
  const troughs: { minute: number; rssMb: number; heapMb: number }[] = [];
  for (let minute = 0; minute < minutes; minute++) {
    const from = started + minute * 60_000;
    const to = from + 60_000;
    const inMinute = completed.filter((c) => c.at >= from && c.at < to);
    const latencies = inMinute.map((c) => c.ms).sort((a, b) => a - b);
    const bad = inMinute.filter(
      (c) => c.status === null || c.status >= 500 || (c.status >= 400 && !RULE_STATUSES.has(c.status)),
    ).length;
    const rejected = inMinute.filter((c) => c.status !== null && RULE_STATUSES.has(c.status)).length;
    const minuteSamples = samples.filter((s) => s.at >= from && s.at <= to);
    const low = minuteSamples.length
      ? {
          minute: minute + 1,
          rssMb: Math.min(...minuteSamples.map((s) => s.rssMb)),
          heapMb: Math.min(...minuteSamples.map((s) => s.heapMb)),
        }
      : null;
    if (low) troughs.push(low);
    const last = minuteSamples.at(-1);
    rows.push([
      String(minute + 1),
      String(inMinute.length),
      (inMinute.length / 60).toFixed(1),
      percentile(latencies, 50).toFixed(1),
      percentile(latencies, 99).toFixed(1),
      String(bad),
      String(rejected),
      last ? last.rssMb.toFixed(1) : '-',
      low ? low.heapMb.toFixed(1) : '-',
    ]);
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  log('');
  for (const [index, row] of rows.entries()) {
    const cells = row.map((cell, i) =>
      i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0),
    );
    log(`| ${cells.join(' | ')} |`);
    if (index === 0) log(`|${widths.map((w, i) => `${'-'.repeat(w + 1)}${i === 0 ? '-' : ':'}`).join('|')}|`);
  }

  const trend = troughs.filter((t) => t.minute > warmupMinutes);
  const judged = trend.length >= 3;
  const heapSlope = slope(trend.map((t) => ({ x: t.minute, y: t.heapMb })));
  const rssSlope = slope(trend.map((t) => ({ x: t.minute, y: t.rssMb })));
  const all = completed.map((c) => c.ms).sort((a, b) => a - b);
  log('');
  log(
    `requests ${completed.length}, p50 ${percentile(all, 50).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms`,
  );
  if (judged) {
    log(
      `memory trend over minutes ${warmupMinutes + 1}..${minutes} (lowest sample of each minute): heap ` +
        `${heapSlope.toFixed(2)} MB/min (limit ${maxHeapSlope}), RSS ${rssSlope.toFixed(2)} MB/min (limit ${maxRssSlope})`,
    );
  } else {
    log(`memory trend not judged: it needs at least 3 minutes after the ${warmupMinutes}-minute warm-up`);
  }
  log(`errors ${errors.length}${errors.length ? `: ${[...new Set(errors)].slice(0, 10).join('; ')}` : ''}`);
  log(`npm run audit: ${auditClean ? 'clean' : 'FAILED'}`);
  const growing = judged && (heapSlope > maxHeapSlope || rssSlope > maxRssSlope);
  const ok = errors.length === 0 && !growing && auditClean;
  log(ok ? '\nsoak passed' : '\nsoak FAILED');
  return ok;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(
      `soak error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);

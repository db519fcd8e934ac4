import {
  Api,
  BOOTSTRAP_TOKEN,
  freePort,
  inParallel,
  type JsonResponse,
  openMarkets,
  randomOrder,
  registerOperator,
  runAudit,
  type ServerProcess,
  seededRandom,
  startServer,
  verdict,
  waitReady,
} from './lib/harness.js';
import { ensurePgAutoctl, Formation, type FormationNode, query } from './lib/pg-auto-failover.js';
import { removeFolder, serverFolder } from './lib/pg-servers.js';

/**
 * Lose the database machine and lose nothing. Starts a pg_auto_failover formation of its own (a monitor, a primary
 * and its synchronous standby, on ports of its own in a temporary folder; pg_autoctl is installed from Debian's
 * packages when missing), two instances of the service on its multi-host URL (the second one reading public market
 * data from the standby, `DATABASE_READ_URL` with `prefer-standby`), and load on both: single limit orders and
 * batches of ten from many traders over several markets, and public reads. Then the primary's machine is lost: its
 * keeper, its PostgreSQL and every backend killed with SIGKILL. It checks that
 *   - every order answered 201, before, during and after the failover, is in the new primary;
 *   - `npm run audit` (every ledger invariant), run on the multi-host URL, exits 0;
 *   - each instance places orders again within FAILOVER_BOUND_MS of the promotion;
 *   - nothing is answered 500 (a batch's orders included), every 503 carries Retry-After, every request is answered,
 *     and both instances are still running;
 * and prints the figures: time to the promotion, to the first 201 on each instance, orders acknowledged and found.
 * Exits 1 on any failure.
 *
 *   FAILOVER_WORKERS    clients placing single orders, per instance (default 6)
 *   FAILOVER_BATCHERS   clients placing batches, per instance (default 2)
 *   FAILOVER_BOUND_MS   how soon after the promotion each instance must place orders again (default 5000)
 *   FAILOVER_SEED       random seed (default the time)
 *   FAILOVER_KEEP       keep the formation's folder (its logs) afterwards (default false)
 */

const workers = Number(process.env.FAILOVER_WORKERS ?? 6);
const batchers = Number(process.env.FAILOVER_BATCHERS ?? 2);
const boundMs = Number(process.env.FAILOVER_BOUND_MS ?? 5_000);
const seed = Number(process.env.FAILOVER_SEED ?? Date.now() % 1_000_000);
const keep = process.env.FAILOVER_KEEP === 'true';
const random = seededRandom(seed);
const ADMIN = 'failover-admin@example.com';
/** Load before the loss, and after both instances are placing orders again. */
const STEADY_MS = 4_000;
/** The longest the script waits for the promotion and for both instances to place orders again. */
const GIVE_UP_MS = 60_000;
const BATCH_SIZE = 10;

type Phase = 'before' | 'during' | 'after';

const failures: string[] = [];
const acknowledged = new Map<string, Phase>();
const answers = new Map<string, number>();
const times = { killedAt: 0, promotedAt: 0, writableAt: 0 };
/** When each instance's first order sent after the loss was answered 201. */
const firstPlaced: (number | null)[] = [null, null];
let sequence = 0;

const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)] as T;
const phaseNow = (): Phase => (times.killedAt === 0 ? 'before' : times.promotedAt === 0 ? 'during' : 'after');

async function main(): Promise<number> {
  ensurePgAutoctl(log);
  const dir = await serverFolder('pmx-failover-');
  const formation = new Formation(dir, await freePort(), 'exchange');
  const servers: ServerProcess[] = [];
  const apis: Api[] = [];
  try {
    const startedAt = Date.now();
    await formation.startMonitor();
    await formation.addNode('node1', await freePort());
    await formation.addNode('node2', await freePort());
    log(
      `failover test: formation ready in ${seconds(Date.now() - startedAt)} (${formation.url}), seed ${seed}`,
    );
    const env = {
      DATABASE_URL: formation.url,
      ADMIN_BOOTSTRAP_TOKEN: BOOTSTRAP_TOKEN,
      ORDER_RATE_LIMIT: '1000000',
      JOBS_ENABLED: 'true',
      LOG_LEVEL: 'error',
    };
    const readUrl = formation.url.replace(
      'target_session_attrs=read-write',
      'target_session_attrs=prefer-standby',
    );
    // The first instance migrates the database; the second starts on it.
    servers.push(startServer(await freePort(), env));
    await waitReady(servers[0] as ServerProcess);
    servers.push(startServer(await freePort(), { ...env, DATABASE_READ_URL: readUrl }));
    await waitReady(servers[1] as ServerProcess);
    for (const server of servers) apis.push(new Api(server.port, workers + batchers + 2, 30_000));
    const { tokens, optionIds } = await prepare(apis[0] as Api);

    let stop = false;
    const load = apis.map((api, instance) => runLoad(api, instance, tokens, optionIds, () => stop));
    await sleep(STEADY_MS);
    const primary = await formation.primary();
    const standby = formation.nodes.find((node) => node !== primary) as FormationNode;
    times.killedAt = Date.now();
    formation.kill(primary);
    log(
      `${acknowledged.size} orders acknowledged; SIGKILL to ${primary.name}'s machine (pg_autoctl and PostgreSQL)`,
    );
    await watchPromotion(formation, standby);
    const deadline = Date.now() + GIVE_UP_MS;
    while (firstPlaced.some((at) => at === null) && Date.now() < deadline) await sleep(50);
    await sleep(STEADY_MS);
    stop = true;
    await Promise.all(load);

    await verify(standby, servers);
    const audit = await runAudit({ DATABASE_URL: formation.url });
    log(`npm run audit on ${formation.url}: exit ${audit.code}`);
    if (audit.code !== 0) failures.push(`npm run audit failed:\n${audit.output.trim()}`);
    report();
    if (failures.length > 0) printErrors(servers);
  } finally {
    await Promise.all(apis.map((api) => api.close()));
    for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await formation.stop();
    if (keep) log(`formation kept in ${dir}`);
    else await removeFolder(dir);
  }
  return verdict('failover test', failures, log);
}

/** What each instance logged as an error (its first 20), so that a failure shows its cause. */
function printErrors(servers: ServerProcess[]): void {
  servers.forEach((server, index) => {
    const errors = server.logLines().filter((line) => Number(line.level) >= 50);
    for (const line of errors.slice(0, 20)) log(`instance ${index + 1} logged: ${JSON.stringify(line)}`);
  });
}

/** The standby out of recovery (the promotion), then taking writes as the monitor reports it. */
async function watchPromotion(formation: Formation, standby: FormationNode): Promise<void> {
  const deadline = Date.now() + GIVE_UP_MS;
  while (Date.now() < deadline && (times.promotedAt === 0 || times.writableAt === 0)) {
    if (times.promotedAt === 0) {
      const rows = await query<{ standby: boolean }>(
        standby.url(),
        'SELECT pg_is_in_recovery() AS standby',
      ).catch(() => []);
      if (rows[0]?.standby === false) times.promotedAt = Date.now();
    }
    if (times.writableAt === 0) {
      const states = await formation.states().catch(() => []);
      const state = states.find((node) => node.name === standby.name);
      if (state && ['wait_primary', 'primary'].includes(state.reported)) times.writableAt = Date.now();
    }
    await sleep(50);
  }
  if (times.promotedAt === 0) throw new Error(`${standby.name} was not promoted within ${GIVE_UP_MS} ms`);
}

/** An operator, traders, and four markets of two options each (two markets' worth of options per batch). */
async function prepare(api: Api): Promise<{ tokens: string[]; optionIds: string[] }> {
  const admin = { token: await registerOperator(api, ADMIN, 'failover admin password') };
  const optionIds = await openMarkets(api, admin.token, 4, 'Failover market');
  const tokens: string[] = [];
  await inParallel(
    Array.from({ length: 24 }, (_, i) => i),
    4,
    async (i) => {
      const user = await api.ok<{ token: string }>('POST', '/api/auth/register', {
        body: { email: `failover-${i}@example.com`, password: 'failover trader password' },
      });
      tokens.push(user.token);
    },
  );
  return { tokens, optionIds };
}

function limitOrderBody(optionId: string): Record<string, unknown> {
  const { body } = randomOrder(random, { market: false, sell: false }, optionId, `fo-${seed}-${++sequence}`);
  return body;
}

/** Single orders, batches and public reads on one instance until `done()`; a 503 is tried again 100 ms later. */
async function runLoad(
  api: Api,
  instance: number,
  tokens: string[],
  optionIds: string[],
  done: () => boolean,
): Promise<void> {
  const single = async () => {
    const sentAt = Date.now();
    const response = await api.request('POST', '/api/limit-orders', {
      token: pick(tokens),
      body: limitOrderBody(pick(optionIds)),
    });
    const placed = response.status === 201 ? [(response.body as { id: string }).id] : [];
    return record(instance, sentAt, response, 'order', placed);
  };
  const batch = async () => {
    const sentAt = Date.now();
    const orders = Array.from({ length: BATCH_SIZE }, () => limitOrderBody(pick(optionIds)));
    const response = await api.request('POST', '/api/limit-orders/batch', {
      token: pick(tokens),
      body: { orders },
    });
    const items = response.status === 200 ? (response.body as { data: BatchItem[] }).data : [];
    for (const item of items) count(`batch order ${item.status} ${item.error?.code ?? ''}`.trim());
    if (items.some((item) => item.status >= 500 && item.status !== 503))
      failures.push(`instance ${instance + 1}: a batch order answered ${JSON.stringify(items)}`);
    const placed = items.filter((item) => item.status === 201).map((item) => item.order?.id as string);
    return record(instance, sentAt, response, 'batch', placed);
  };
  const read = async () => {
    const sentAt = Date.now();
    const response = await api.request('GET', `/api/options/${pick(optionIds)}/trades?limit=20`);
    return record(instance, sentAt, response, 'read', []);
  };
  const client = async (work: () => Promise<number>) => {
    while (!done()) {
      try {
        const status = await work();
        if (status === 503) await sleep(100);
      } catch (error) {
        failures.push(`instance ${instance + 1}: no answer (${(error as Error).message})`);
        await sleep(100);
      }
    }
  };
  await Promise.all([
    ...Array.from({ length: workers }, () => client(single)),
    ...Array.from({ length: batchers }, () => client(batch)),
    client(read),
  ]);
}

interface BatchItem {
  status: number;
  order?: { id: string };
  error?: { code: string };
}

function count(key: string): void {
  answers.set(key, (answers.get(key) ?? 0) + 1);
}

function record(
  instance: number,
  sentAt: number,
  response: JsonResponse,
  kind: 'order' | 'batch' | 'read',
  placed: string[],
): number {
  const code = (response.body as { code?: string } | null)?.code;
  count(`${kind} ${response.status}${code ? ` ${code}` : ''}`);
  if (response.status >= 500 && response.status !== 503)
    failures.push(
      `instance ${instance + 1}: ${kind} answered ${response.status} ${JSON.stringify(response.body)}`,
    );
  if (response.status === 503 && !response.headers['retry-after'])
    failures.push(`instance ${instance + 1}: a 503 without Retry-After`);
  const phase = phaseNow();
  for (const id of placed) acknowledged.set(id, phase);
  if (placed.length > 0 && times.killedAt > 0 && sentAt > times.killedAt && firstPlaced[instance] === null)
    firstPlaced[instance] = Date.now();
  return response.status;
}

/** Every acknowledged order in the new primary; the instances still running. */
async function verify(newPrimary: FormationNode, servers: ServerProcess[]): Promise<void> {
  const ids = [...acknowledged.keys()];
  const rows = await query<{ id: string }>(
    newPrimary.url(),
    'SELECT id::text FROM orders WHERE id = ANY($1::bigint[])',
    [ids],
  );
  const found = new Set(rows.map((row) => row.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0)
    failures.push(
      `${missing.length} acknowledged orders are not in the new primary: ` +
        missing
          .slice(0, 10)
          .map((id) => `${id} (${acknowledged.get(id)})`)
          .join(', '),
    );
  log(`orders acknowledged: ${ids.length}, found in the new primary (${newPrimary.name}): ${found.size}`);
  servers.forEach((server, i) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null)
      failures.push(`instance ${i + 1} exited:\n${server.output().slice(-2000)}`);
  });
  firstPlaced.forEach((at, i) => {
    if (at === null)
      failures.push(`instance ${i + 1} placed no order after the loss within ${GIVE_UP_MS} ms`);
    else if (at - times.promotedAt > boundMs)
      failures.push(
        `instance ${i + 1} placed orders again ${at - times.promotedAt} ms after the promotion (bound ${boundMs} ms)`,
      );
  });
}

function report(): void {
  const byPhase = (phase: Phase) => [...acknowledged.values()].filter((p) => p === phase).length;
  const since = (at: number | null, from: number) => (at === null ? 'never' : seconds(at - from));
  log('\n| figure | value |\n| --- | --- |');
  log(
    `| time to the promotion (SIGKILL → the standby out of recovery) | ${since(times.promotedAt, times.killedAt)} |`,
  );
  log(
    `| time until the new primary takes writes (the monitor: wait_primary) | ${since(times.writableAt, times.killedAt)} |`,
  );
  for (const [i, at] of firstPlaced.entries())
    log(
      `| first 201 on instance ${i + 1} (an order sent after the loss) | ${since(at, times.killedAt)} after the ` +
        `SIGKILL, ${since(at, times.promotedAt)} after the promotion (bound ${seconds(boundMs)}), ` +
        `${since(at, times.writableAt)} after the new primary took writes |`,
    );
  log(
    `| orders acknowledged (before / during / after the promotion) | ${acknowledged.size} ` +
      `(${byPhase('before')} / ${byPhase('during')} / ${byPhase('after')}) |`,
  );
  const tally = [...answers.entries()].sort(([a], [b]) => a.localeCompare(b));
  log(`| answers | ${tally.map(([key, n]) => `${key}: ${n}`).join(', ')} |`);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    log(`failover test failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);

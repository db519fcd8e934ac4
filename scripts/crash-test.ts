import pg from 'pg';
import {
  Api,
  BOOTSTRAP_TOKEN,
  createThrowawayDatabase,
  freePort,
  inParallel,
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

/**
 * Crash safety on PostgreSQL. Runs order load from many traders against a real server process, kills the process
 * with SIGKILL at random moments, restarts it, and in the end checks the database:
 *   - every order the server acknowledged (201) is stored, with every trade its response listed;
 *   - every order is whole: its filled quantity is the sum of its trades, and what it still holds is what it
 *     reserved for the rest; positions are the sum of their trades;
 *   - an order in flight when the process died was committed whole or not at all (found by its clientOrderId);
 *   - every acknowledged cancel is stored;
 *   - `npm run audit` (all ledger invariants) exits 0.
 * Exits 1 on any failure.
 *
 *   CRASH_DATABASE_URL  PostgreSQL server to create a throw-away database on (default the local test server)
 *   CRASH_KILLS         how many times the server is killed (default 5)
 *   CRASH_USERS         traders (default 40)
 *   CRASH_CONCURRENCY   requests in flight (default 24)
 *   CRASH_SEED          random seed (default the time)
 *   CRASH_KEEP          keep the database afterwards (default false)
 *   CRASH_MID_BATCH     kill only while a batch of orders is being written: after the random wait, watch
 *                       pg_stat_activity until the server is inside a batch transaction (it has inserted the
 *                       batch's orders and not yet committed) and kill it there (default true)
 */

const adminUrl = process.env.CRASH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const kills = Number(process.env.CRASH_KILLS ?? 5);
const userCount = Number(process.env.CRASH_USERS ?? 40);
const concurrency = Number(process.env.CRASH_CONCURRENCY ?? 24);
const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
const keep = process.env.CRASH_KEEP === 'true';
const midBatch = process.env.CRASH_MID_BATCH !== 'false';
const random = seededRandom(seed);
const ADMIN = 'crash-admin@example.com';

interface Acknowledged {
  id: string;
  clientOrderId: string;
  tradeIds: string[];
  filledQuantity: number;
}

interface PlacedView {
  id: string;
  status: string;
  filledQuantity: number;
  trades: { id: string }[];
}

const acknowledged: Acknowledged[] = [];
const cancelled: string[] = [];
const inFlight: { round: number; kind: 'order' | 'cancel'; clientOrderId?: string; orderId?: string }[] = [];
const failures: string[] = [];
const counts = { requests: 0, rejected: 0, killsInsideBatch: 0 };

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<number> {
  log(`crash test: ${kills} kills, ${userCount} traders, ${concurrency} in flight, seed ${seed}`);
  const database = await createThrowawayDatabase(adminUrl, 'crash');
  let server: ServerProcess | null = null;
  try {
    const start = async () => {
      const port = await freePort();
      const started = startServer(port, {
        DATABASE_URL: database.url,
        ADMIN_BOOTSTRAP_TOKEN: BOOTSTRAP_TOKEN,
        JOBS_ENABLED: 'true',
        JOB_INTERVAL_MS: '500',
      });
      await waitReady(started);
      return started;
    };
    server = await start();
    const setup = new Api(server.port, 8);
    const { tokens, optionIds } = await prepare(setup);
    await setup.close();

    for (let round = 1; round <= kills + 1; round++) {
      const api = new Api(server.port, concurrency);
      const last = round > kills;
      const runFor = last ? 1500 : 1000 + Math.floor(random() * 3000);
      const stopAt = Date.now() + runFor;
      const before = acknowledged.length;
      // A round that ends in a kill keeps its load running until the kill, so the kill always lands under load.
      let killed = false;
      const load = runLoad(api, round, tokens, optionIds, () => (last ? Date.now() > stopAt : killed));
      if (last) {
        await load;
        server.child.kill('SIGTERM');
        const exit = await server.exited;
        if (exit.code !== 0) failures.push(`the final graceful stop exited ${exit.code}`);
      } else {
        await new Promise((resolve) => setTimeout(resolve, runFor));
        if (midBatch && (await insideBatch(database.url))) counts.killsInsideBatch += 1;
        server.child.kill('SIGKILL');
        killed = true;
        await server.exited;
        await load;
      }
      await api.close();
      const inFlightNow = inFlight.filter((entry) => entry.round === round).length;
      log(
        `round ${round}: ${acknowledged.length - before} orders acknowledged, ` +
          (last
            ? 'stopped with SIGTERM'
            : `SIGKILL after ${runFor} ms with ${inFlightNow} requests in flight` +
              (midBatch ? `, ${counts.killsInsideBatch} of ${round} kills inside a batch transaction` : '')),
      );
      if (!last) server = await start();
    }

    await verify(database.url);
    const audit = await runAudit({ DATABASE_URL: database.url });
    log(`npm run audit: exit ${audit.code}\n${audit.output.trim()}`);
    if (audit.code !== 0) failures.push('npm run audit failed');
  } finally {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
    }
    if (keep) log(`database kept: ${database.url}`);
    else await database.drop();
  }
  return verdict('crash test', failures, log);
}

/**
 * Waits (up to 10 s) until a server connection is inside a batch transaction: its orders inserted, not yet
 * committed. Returns at once when it sees one, so that the caller's SIGKILL lands in the middle of the batch.
 */
async function insideBatch(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL
           AND query LIKE '%INSERT INTO orders (id, user_id%'`,
      );
      if ((rows[0]?.n ?? 0) > 0) return true;
    }
    return false;
  } finally {
    await client.end();
  }
}

async function prepare(api: Api): Promise<{ tokens: string[]; optionIds: string[] }> {
  const admin = { token: await registerOperator(api, ADMIN, 'crash admin password') };
  // Makers' batches spread over these markets; single orders and cancels go to any of them.
  const optionIds = await openMarkets(api, admin.token, 6, 'Crash market');
  const tokens: string[] = [];
  await inParallel(
    Array.from({ length: userCount }, (_, i) => i),
    4,
    async (i) => {
      const user = await api.ok<{ token: string }>('POST', '/api/auth/register', {
        body: { email: `crash-${i}@example.com`, password: 'crash trader password' },
      });
      tokens.push(user.token);
    },
  );
  return { tokens, optionIds };
}

/** Mixed trading until `done()`, or until the server goes away; records what was acknowledged and in flight. */
async function runLoad(
  api: Api,
  round: number,
  tokens: string[],
  optionIds: string[],
  done: () => boolean,
): Promise<void> {
  const openOrders = new Map<string, string[]>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (!done()) {
        const token = tokens[Math.floor(random() * tokens.length)] as string;
        const mine = openOrders.get(token) ?? [];
        const roll = random();
        if (roll < 0.15 && mine.length > 0) {
          const orderId = mine.splice(Math.floor(random() * mine.length), 1)[0] as string;
          const result = await send(() => api.request('DELETE', `/api/limit-orders/${orderId}`, { token }));
          if (result === 'died') {
            inFlight.push({ round, kind: 'cancel', orderId });
            return;
          }
          if (result.status === 200) cancelled.push(orderId);
          continue;
        }
        if (roll > 0.9) {
          if ((await sendBatch(api, token, round, `r${round}-w${worker}-b${next++}`, optionIds)) === 'died')
            return;
          continue;
        }
        const clientOrderId = `r${round}-w${worker}-${next++}`;
        const optionId = optionIds[Math.floor(random() * optionIds.length)] as string;
        const { path, body } = randomOrder(
          random,
          { market: roll > 0.8, sell: roll < 0.3 },
          optionId,
          clientOrderId,
        );
        const result = await send(() => api.request('POST', path, { token, body }));
        if (result === 'died') {
          inFlight.push({ round, kind: 'order', clientOrderId });
          return;
        }
        if (result.status === 201) {
          const placed = result.body as PlacedView;
          acknowledged.push({
            id: placed.id,
            clientOrderId,
            tradeIds: placed.trades.map((trade) => trade.id),
            filledQuantity: placed.filledQuantity,
          });
          if (placed.status === 'open' || placed.status === 'partially_filled') {
            openOrders.set(token, [...mine, placed.id]);
          }
        } else if (result.status >= 500) {
          failures.push(
            `${path === '/api/trades' ? 'trade' : 'limit order'} ${clientOrderId}: ${result.status} ${JSON.stringify(result.body)}`,
          );
        } else {
          counts.rejected += 1;
        }
      }
    }),
  );
}

/**
 * A maker's batch: both sides of three random markets in one request. Each order acknowledged with 201 is recorded
 * like a single one; at a kill, each of its orders is in flight (committed whole or absent).
 */
async function sendBatch(api: Api, token: string, round: number, name: string, optionIds: string[]) {
  const orders = [0, 1, 2].flatMap((m) => {
    const optionId = optionIds[Math.floor(random() * optionIds.length)] as string;
    const bid = 35 + Math.floor(random() * 20);
    return [
      {
        optionId,
        side: 'YES',
        action: 'BUY',
        quantity: 2,
        limitPriceCents: bid,
        clientOrderId: `${name}-${2 * m}`,
      },
      {
        optionId,
        side: 'NO',
        action: 'BUY',
        quantity: 2,
        limitPriceCents: 97 - bid,
        clientOrderId: `${name}-${2 * m + 1}`,
      },
    ];
  });
  const result = await send(() =>
    api.request('POST', '/api/limit-orders/batch', { token, body: { orders } }),
  );
  if (result === 'died') {
    for (const order of orders) inFlight.push({ round, kind: 'order', clientOrderId: order.clientOrderId });
    return 'died';
  }
  if (result.status >= 500) failures.push(`batch ${name}: ${result.status} ${JSON.stringify(result.body)}`);
  const items =
    (result.body as { data?: { status: number; order?: PlacedView; error?: unknown }[] }).data ?? [];
  items.forEach((item, index) => {
    const clientOrderId = orders[index]?.clientOrderId as string;
    if (item.status === 201 && item.order)
      acknowledged.push({
        id: item.order.id,
        clientOrderId,
        tradeIds: item.order.trades.map((trade) => trade.id),
        filledQuantity: item.order.filledQuantity,
      });
    else if (item.status >= 500)
      failures.push(`batch order ${clientOrderId}: ${item.status} ${JSON.stringify(item.error)}`);
    else counts.rejected += 1;
  });
  return 'answered';
}

async function send(
  request: () => Promise<{ status: number; body: unknown }>,
): Promise<{ status: number; body: unknown } | 'died'> {
  counts.requests += 1;
  try {
    return await request();
  } catch {
    return 'died';
  }
}

async function verify(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const orders = await client.query<{
      id: string;
      client_order_id: string | null;
      filled_quantity: string;
    }>('SELECT id::text, client_order_id, filled_quantity::text FROM orders');
    const byId = new Map(orders.rows.map((row) => [row.id, row]));
    const byClientId = new Map(orders.rows.map((row) => [row.client_order_id, row]));
    const tradeIds = new Set(
      (await client.query<{ id: string }>('SELECT id::text FROM trades')).rows.map((row) => row.id),
    );

    let found = 0;
    for (const order of acknowledged) {
      const row = byId.get(order.id);
      if (!row || row.client_order_id !== order.clientOrderId) {
        failures.push(`acknowledged order ${order.id} (${order.clientOrderId}) is missing`);
        continue;
      }
      found += 1;
      if (Number(row.filled_quantity) < order.filledQuantity) {
        failures.push(
          `order ${order.id} was acknowledged with ${order.filledQuantity} filled, stored ${row.filled_quantity}`,
        );
      }
      const missing = order.tradeIds.filter((id) => !tradeIds.has(id));
      if (missing.length > 0) failures.push(`order ${order.id}: trades ${missing.join(', ')} are missing`);
    }

    const halfApplied = await client.query<{ id: string; filled_quantity: string; traded: string }>(`
      SELECT o.id::text, o.filled_quantity::text, coalesce(sum(t.quantity), 0)::text AS traded
      FROM orders o LEFT JOIN trades t ON t.order_id = o.id
      GROUP BY o.id HAVING o.filled_quantity <> coalesce(sum(t.quantity), 0)`);
    for (const row of halfApplied.rows) {
      failures.push(`order ${row.id}: filled ${row.filled_quantity} but its trades sum to ${row.traded}`);
    }
    const badReservations = await client.query<{ id: string }>(`
      SELECT id::text FROM orders
      WHERE (status IN ('open', 'partially_filled') AND action = 'BUY' AND reserved_cents <> price_cents * (quantity - filled_quantity))
         OR (status NOT IN ('open', 'partially_filled') AND reserved_cents <> 0)`);
    for (const row of badReservations.rows)
      failures.push(`order ${row.id}: reservation does not match what is left`);
    const badPositions = await client.query<{ id: string }>(`
      SELECT p.id::text FROM positions p
      LEFT JOIN (
        SELECT user_id, option_id, side,
               sum(CASE WHEN action = 'BUY' THEN quantity ELSE -quantity END) AS held
        FROM trades GROUP BY user_id, option_id, side
      ) t ON t.user_id = p.user_id AND t.option_id = p.option_id AND t.side = p.side
      WHERE p.quantity <> coalesce(t.held, 0)`);
    for (const row of badPositions.rows) failures.push(`position ${row.id} is not the sum of its trades`);
    const badShareReservations = await client.query<{ id: string }>(`
      SELECT p.id::text FROM positions p
      LEFT JOIN (
        SELECT user_id, option_id, side, sum(quantity - filled_quantity) AS held
        FROM orders WHERE action = 'SELL' AND status IN ('open', 'partially_filled')
        GROUP BY user_id, option_id, side
      ) o ON o.user_id = p.user_id AND o.option_id = p.option_id AND o.side = p.side
      WHERE p.reserved_quantity <> coalesce(o.held, 0)`);
    for (const row of badShareReservations.rows) {
      failures.push(`position ${row.id}: reserved shares do not match its open SELL orders`);
    }

    const cancelStates = await client.query<{ id: string; status: string }>(
      'SELECT id::text, status FROM orders WHERE id = ANY($1::bigint[])',
      [cancelled],
    );
    for (const row of cancelStates.rows) {
      if (row.status !== 'cancelled')
        failures.push(`cancel of order ${row.id} was acknowledged, status ${row.status}`);
    }

    const orderInFlight = inFlight.filter((entry) => entry.kind === 'order');
    const committed = orderInFlight.filter((entry) => byClientId.has(entry.clientOrderId ?? null));
    const cancelsInFlight = inFlight.filter((entry) => entry.kind === 'cancel');
    const inFlightCancelStates = await client.query<{ status: string }>(
      'SELECT status FROM orders WHERE id = ANY($1::bigint[])',
      [cancelsInFlight.map((entry) => entry.orderId)],
    );
    const cancelsApplied = inFlightCancelStates.rows.filter((row) => row.status === 'cancelled').length;
    const totalTrades = tradeIds.size;
    log('\nresult');
    log(`  requests sent                       ${counts.requests}`);
    log(`  orders acknowledged (201)           ${acknowledged.length}`);
    log(`  acknowledged orders found           ${found}`);
    log(
      `  trades listed in acknowledgements   ${acknowledged.reduce((n, o) => n + o.tradeIds.length, 0)} (all found: ${failures.every((f) => !f.includes('trades'))})`,
    );
    log(`  trades in the database              ${totalTrades}`);
    log(
      `  cancels acknowledged, stored        ${cancelled.length}, ${cancelStates.rows.filter((r) => r.status === 'cancelled').length}`,
    );
    log(`  rejected with a 4xx (rules)         ${counts.rejected}`);
    if (midBatch) log(`  kills inside a batch transaction    ${counts.killsInsideBatch} of ${kills}`);
    if (midBatch && counts.killsInsideBatch < kills)
      failures.push(`only ${counts.killsInsideBatch} of ${kills} kills landed inside a batch transaction`);
    log(
      `  orders in flight at a kill          ${orderInFlight.length}: ${committed.length} committed whole, ` +
        `${orderInFlight.length - committed.length} absent`,
    );
    log(
      `  cancels in flight at a kill         ${cancelsInFlight.length}: ${cancelsApplied} committed, ${cancelsInFlight.length - cancelsApplied} not`,
    );
    log(`  orders whose fills ≠ their trades   ${halfApplied.rows.length}`);
    log(`  reservations not matching the rest  ${badReservations.rows.length}`);
    log(`  positions ≠ sum of their trades     ${badPositions.rows.length}`);
    log(`  share reservations not matching     ${badShareReservations.rows.length}`);
  } finally {
    await client.end();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(
      `crash test error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);

import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderRequest } from '../../../src/modules/trading/types.js';
import type { Database } from '../../../src/platform/db/database.js';
import { AppError } from '../../../src/platform/errors.js';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { createMarket } from '../../support/exchange.js';
import { newAdmin, newUser, type TestUser } from '../../support/factories.js';

/**
 * The order pipeline decides a batch of orders exactly as it decides the same orders one after another: the same
 * answers, and the same rows, positions and ledger. And a batch that fails is never silent.
 */

interface Draft {
  user: number;
  kind: 'market' | 'limit';
  side: 'YES' | 'NO';
  action: 'BUY' | 'SELL';
  quantity: number;
  priceCents: number;
}

const draft: fc.Arbitrary<Draft> = fc.record({
  user: fc.integer({ min: 0, max: 3 }),
  kind: fc.constantFrom('limit' as const, 'limit' as const, 'market' as const),
  side: fc.constantFrom('YES' as const, 'NO' as const),
  action: fc.constantFrom('BUY' as const, 'BUY' as const, 'SELL' as const),
  quantity: fc.integer({ min: 1, max: 15 }),
  priceCents: fc.integer({ min: 30, max: 70 }),
});

/** A stream of orders cut into batches (each batch sent at once). */
const stream = fc.array(fc.array(draft, { minLength: 1, maxLength: 8 }), { minLength: 3, maxLength: 10 });

interface Exchange {
  t: TestApp;
  users: TestUser[];
  optionId: number;
}

async function newExchange(): Promise<Exchange> {
  const t = await createTestApp();
  const admin = await newAdmin(t.app);
  const users: TestUser[] = [];
  for (let i = 0; i < 4; i++) users.push(await newUser(t.app, { email: `equal${i}@example.com` }));
  const market = await createMarket(t.app, admin.token, {
    title: 'Equivalence',
    options: [{ label: 'Hot', liquidityCents: 2_000 }],
  });
  return { t, users, optionId: Number(market.options[0]?.id) };
}

/** Places one order and says what came of it, as comparable data. */
async function place(exchange: Exchange, order: Draft): Promise<unknown> {
  const { user, ...rest } = order;
  const request: OrderRequest = { optionId: exchange.optionId, ...rest };
  try {
    const result = await exchange.t.app.services.trading.placeOrder(
      Number(exchange.users[user]?.id),
      request,
      null,
    );
    return withoutClock(result.body);
  } catch (error) {
    if (error instanceof AppError) return { status: error.statusCode, code: error.code };
    throw error;
  }
}

function withoutClock(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, v) =>
    key === 'createdAt' || key === 'updatedAt' ? undefined : v,
  );
}

/** Everything the orders wrote, in a stable order, without the clock. */
async function everything(database: Database) {
  const query = async (text: string) => (await sql.raw(text).execute(database.db)).rows;
  return {
    orders: await query(`SELECT id, user_id, kind, side, action, price_cents, quantity, filled_quantity,
      reserved_cents, status, cancel_reason FROM orders ORDER BY id`),
    fills: await query(
      `SELECT id, yes_price, quantity, kind, taker_order_id, maker_order_id FROM fills ORDER BY id`,
    ),
    trades:
      await query(`SELECT id, fill_id, order_id, user_id, side, action, quantity, price_cents, fee_cents,
      liquidity FROM trades ORDER BY id`),
    positions: await query(`SELECT user_id, option_id, side, quantity, reserved_quantity, cost_cents,
      realized_pnl_cents FROM positions ORDER BY user_id, option_id, side`),
    // What each account holds; a user's cash and transit accounts as one (when what markets gave back is taken
    // into cash depends on when the user's next request comes, not on what was decided).
    balances: await query(`SELECT CASE a.kind WHEN 'transit' THEN 'cash' ELSE a.kind END AS kind, a.user_id,
      a.option_id, sum(p.amount) AS balance FROM ledger_accounts a JOIN postings p ON p.account_id = a.id
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`),
    entries: await query(`SELECT e.kind, e.memo, e.user_id, e.ref_type, e.ref_id, sum(abs(p.amount)) AS moved
      FROM journal_entries e JOIN postings p ON p.entry_id = e.id WHERE e.kind <> 'collateral'
      GROUP BY e.id ORDER BY e.id`),
    options: await query(`SELECT id, amm_yes_shares, amm_no_shares, pairs_minted, pairs_merged, volume_shares,
      volume_cents, last_yes_price FROM options ORDER BY id`),
  };
}

describe('the order pipeline', () => {
  let alone: Exchange;
  let batched: Exchange;

  beforeAll(async () => {
    alone = await newExchange();
    batched = await newExchange();
  });
  afterAll(async () => {
    await alone.t.close();
    await batched.t.close();
  });

  it('decides orders sent in batches exactly as the same orders sent one by one', async () => {
    expect(batched.users.map((u) => u.id)).toEqual(alone.users.map((u) => u.id));
    let largestBatch = 0;
    batched.t.app.services.trading.onOrderCommitted(async (_trx, changes) => {
      largestBatch = Math.max(largestBatch, changes.length);
    });
    await fc.assert(
      fc.asyncProperty(stream, async (batches) => {
        for (const batch of batches) {
          const oneByOne: unknown[] = [];
          for (const order of batch) oneByOne.push(await place(alone, order));
          // Sent in one turn of the event loop, so they queue for one batch, in this order.
          const together = await Promise.all(batch.map((order) => place(batched, order)));
          expect(together).toEqual(oneByOne);
        }
        expect(await everything(batched.t.database)).toEqual(await everything(alone.t.database));
      }),
      { numRuns: 6, endOnFailure: true },
    );
    expect(largestBatch).toBeGreaterThan(1);
    await expectInvariants(alone.t.database);
    await expectInvariants(batched.t.database);
  });

  it('counts its transactions, the requests and markets they take, and the time of each step in /metrics', async () => {
    const read = async () => {
      const text = (await alone.t.app.inject({ url: '/metrics' })).body;
      const steps = new Map(
        [...text.matchAll(/^exchange_order_batch_step_seconds_total\{step="(\w+)"\} (\S+)$/gm)].map(
          ([, step, value]) => [step, Number(value)],
        ),
      );
      const counter = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
      return {
        steps,
        requests: counter('exchange_order_batch_requests_total'),
        transactions: counter('exchange_order_batch_transactions_total'),
        markets: counter('exchange_order_batch_markets_total'),
      };
    };
    const before = await read();
    await place(alone, { user: 0, kind: 'limit', side: 'YES', action: 'BUY', quantity: 1, priceCents: 30 });
    await place(alone, { user: 1, kind: 'limit', side: 'NO', action: 'BUY', quantity: 1, priceCents: 30 });
    const after = await read();
    expect(after.requests - before.requests).toBe(2);
    // One after the other: a transaction each, of one market each.
    expect(after.transactions - before.transactions).toBe(2);
    expect(after.markets - before.markets).toBe(2);
    for (const step of ['lock', 'hold', 'decide_write', 'answer', 'announce', 'commit'])
      expect((after.steps.get(step) ?? 0) - (before.steps.get(step) ?? 0), step).toBeGreaterThan(0);
  });
});

describe('a batch that fails', () => {
  let t: TestApp;
  const lines: string[] = [];
  let users: TestUser[];
  let optionId: number;

  beforeAll(async () => {
    t = await createTestApp({
      env: { LOG_LEVEL: 'warn' },
      logStream: { write: (line) => lines.push(line) },
    });
    const admin = await newAdmin(t.app);
    users = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];
    optionId = Number((await createMarket(t.app, admin.token)).options[0]?.id);
  });
  afterAll(async () => {
    await t.close();
  });

  it('is logged with its cause and counted, and its orders are answered one by one as if alone', async () => {
    let failures = 0;
    // A listener that fails the first batch of more than one order (a bug on the batched path, say).
    t.app.services.trading.onOrderCommitted(async (_trx, changes) => {
      if (changes.length > 1 && failures === 0) {
        failures += 1;
        throw new Error('a listener failed on a batch');
      }
    });
    const trading = t.app.services.trading;
    const id = (user: TestUser) => Number(user.id);
    const [u1, u2, u3] = users as [TestUser, TestUser, TestUser];
    const limit = (side: 'YES' | 'NO', action: 'BUY' | 'SELL', quantity: number, priceCents: number) => ({
      optionId,
      kind: 'limit' as const,
      side,
      action,
      quantity,
      priceCents,
    });
    const answers = await Promise.allSettled([
      trading.placeOrder(id(u1), limit('YES', 'BUY', 5, 40), null),
      trading.placeOrder(id(u2), limit('NO', 'BUY', 3, 60), null),
      trading.placeOrder(id(u3), limit('YES', 'SELL', 2, 10), null),
      trading.placeOrder(id(u1), limit('YES', 'BUY', 100_000, 99), null),
    ]);
    expect(failures).toBe(1);
    const [rests, mints, noShares, noCash] = answers;
    expect(rests).toMatchObject({ status: 'fulfilled', value: { status: 201, body: { status: 'open' } } });
    expect(mints).toMatchObject({
      status: 'fulfilled',
      value: { status: 201, body: { status: 'filled', filledQuantity: 3, averagePriceCents: 60 } },
    });
    expect(noShares).toMatchObject({ status: 'rejected', reason: { code: 'INSUFFICIENT_SHARES' } });
    expect(noCash).toMatchObject({ status: 'rejected', reason: { code: 'INSUFFICIENT_FUNDS' } });

    const warned = lines.map((line) => JSON.parse(line)).find((line) => line.msg?.includes('batch failed'));
    expect(warned).toMatchObject({
      level: 40,
      markets: [`option:${optionId}`],
      // The fourth order was refused before any market saw it: its cash could not cover it.
      requests: 3,
      err: { message: 'a listener failed on a batch' },
    });
    const metrics = (await t.app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/^exchange_order_batch_failures_total 1$/m);
    await expectInvariants(t.database);
  });
});

describe('a batch whose fills leave every level as it was', () => {
  let t: TestApp;
  afterAll(async () => {
    await t.close();
  });

  it('writes and announces its orders and fills: two trades against the house that net out', async () => {
    t = await createTestApp();
    const admin = await newAdmin(t.app);
    const [u1, u2, u3] = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];
    const optionId = Number(
      (await createMarket(t.app, admin.token, { options: [{ label: 'Even', liquidityCents: 50_000 }] }))
        .options[0]?.id,
    );
    const trading = t.app.services.trading;
    const market = (side: 'YES' | 'NO') => ({
      optionId,
      kind: 'market' as const,
      side,
      action: 'BUY' as const,
      quantity: 2,
      priceCents: 90,
    });
    // The house buys 2 YES (selling NO it does not hold), then sells them back and buys them again in one batch.
    await trading.placeOrder(Number(u1.id), market('NO'), null);
    const before = (await t.app.inject({ url: `/api/orderbook/${optionId}` })).json();
    const [yes, no] = await Promise.all([
      trading.placeOrder(Number(u2.id), market('YES'), null),
      trading.placeOrder(Number(u3.id), market('NO'), null),
    ]);
    // Placed through the service, not HTTP: the cached book is dropped when the change's notice comes back.
    const book = async () => (await t.app.inject({ url: `/api/orderbook/${optionId}` })).json();
    await expect.poll(async () => (await book()).bookVersion).toBe(before.bookVersion + 1);
    const after = await book();
    expect({ yes: after.yes, no: after.no }).toEqual({ yes: before.yes, no: before.no });
    for (const placed of [yes, no]) {
      const body = placed.body as { id: string; filledQuantity: number };
      expect(body.filledQuantity).toBe(2);
      const { rows } = await sql<{ id: number; filled_quantity: number }>`
        SELECT id, filled_quantity FROM orders WHERE id = ${Number(body.id)}`.execute(t.database.db);
      expect(rows).toEqual([{ id: Number(body.id), filled_quantity: 2 }]);
    }
    const { rows } = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM fills WHERE option_id = ${optionId}`.execute(t.database.db);
    expect(rows[0]?.n).toBe(3);
    await expectInvariants(t.database);
  });
});

describe('a batch that a deadlock ends', () => {
  let t: TestApp;
  const lines: string[] = [];
  afterAll(async () => {
    await t.close();
  });

  it('goes again whole, first in its queue, and every order is answered as if alone', async () => {
    t = await createTestApp({ env: {}, logStream: { write: (line) => lines.push(line) } });
    const admin = await newAdmin(t.app);
    const users = [await newUser(t.app), await newUser(t.app), await newUser(t.app)];
    const optionId = Number((await createMarket(t.app, admin.token)).options[0]?.id);
    let deadlocks = 0;
    // PostgreSQL ends the first two batches of more than one order to break a deadlock (another market's
    // transaction waiting on the same ledger accounts, say).
    t.app.services.trading.onOrderCommitted(async (_trx, changes) => {
      if (changes.length > 1 && deadlocks < 2) {
        deadlocks += 1;
        throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      }
    });
    const limit = (priceCents: number) => ({
      optionId,
      kind: 'limit' as const,
      side: 'YES' as const,
      action: 'BUY' as const,
      quantity: 2,
      priceCents,
    });
    const answers = await Promise.all(
      users.map((user, i) => t.app.services.trading.placeOrder(Number(user.id), limit(40 + i), null)),
    );
    expect(deadlocks).toBe(2);
    expect(answers.map((answer) => (answer.body as { status: string }).status)).toEqual([
      'open',
      'open',
      'open',
    ]);
    const { rows } = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM orders WHERE option_id = ${optionId}`.execute(t.database.db);
    expect(rows[0]?.n).toBe(3);
    // Not handed back to run one by one: the batch itself went again.
    expect(lines.some((line) => line.includes('placed one by one'))).toBe(false);
    await expectInvariants(t.database);
  });
});

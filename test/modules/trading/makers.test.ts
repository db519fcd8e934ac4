import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeTwoInstances,
  createTestApp,
  createTwoInstances,
  expectInvariants,
  TEST_DATABASE_URL,
  type TestApp,
  type TwoInstances,
} from '../../support/app.js';
import { balanceOf, createMarket } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';
import { bookOf, Follower, type Level, sorted } from '../../support/follower.js';
import { streamUrl } from '../../support/stream-client.js';

/**
 * Many makers on many markets, the shape liquidity takes on a prediction market: a maker's cash is set aside once
 * per request for all its orders (in order, each as if alone), and no market waits for another for it.
 */

interface Item {
  status: number;
  order?: { id: string; status: string; reservedCents: number };
  error?: { code: string; details?: { neededCents?: number; availableCents?: number } };
}

async function batch(app: FastifyInstance, token: string, orders: unknown[]) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/limit-orders/batch',
    headers: bearer(token),
    payload: { orders },
  });
  return { status: res.statusCode, items: (res.json().data ?? []) as Item[], body: res.body };
}

async function newOptions(app: FastifyInstance, admin: TestUser, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const market = await createMarket(app, admin.token, {
      title: `Maker market ${i} ${Date.now()}`,
      options: [{ label: 'Yes', liquidityCents: 20_000 }],
    });
    ids.push(market.options[0]?.id as string);
  }
  return ids;
}

describe('a batch over many markets', () => {
  let t: TestApp;
  let admin: TestUser;
  beforeAll(async () => {
    t = await createTestApp({ env: { STARTING_BALANCE_CENTS: '3000' } });
    admin = await newAdmin(t.app);
  });
  afterAll(async () => {
    await t.close();
  });

  it('sets each order aside in order: a later one is refused 402 because earlier ones took the cash', async () => {
    const options = await newOptions(t.app, admin, 5);
    const maker = await newUser(t.app);
    // Bids far from the house's quotes: each rests, and holds its price times its quantity.
    const orders = options.map((optionId) => ({
      optionId,
      side: 'YES',
      action: 'BUY',
      quantity: 10,
      limitPriceCents: 8,
    }));
    // 80 each after a first 2,680 and a sale that needs no cash: four fit in the 320 left, the fifth finds none.
    const big = { optionId: options[0], side: 'YES', action: 'BUY', quantity: 335, limitPriceCents: 8 };
    const sale = { optionId: options[1], side: 'NO', action: 'SELL', quantity: 1, limitPriceCents: 50 };
    const { status, items } = await batch(t.app, maker.token, [big, sale, ...orders]);
    expect(status).toBe(200);
    expect(items.map((item) => item.status)).toEqual([201, 409, 201, 201, 201, 201, 402]);
    expect(items[1]?.error?.code).toBe('INSUFFICIENT_SHARES');
    expect(items[6]?.error).toMatchObject({
      code: 'INSUFFICIENT_FUNDS',
      details: { neededCents: 80, availableCents: 0 },
    });
    expect(await balanceOf(t.app, maker.token)).toEqual({ cashCents: 0, reservedCents: 3_000 });
    // Cancelled, everything comes back, with nothing set aside left anywhere.
    const cancelAll = await t.app.inject({
      method: 'POST',
      url: '/api/limit-orders/cancel-all',
      headers: bearer(maker.token),
      payload: {},
    });
    expect(cancelAll.json().cancelledCount).toBe(5);
    expect(await balanceOf(t.app, maker.token)).toEqual({ cashCents: 3_000, reservedCents: 0 });
    await expectInvariants(t.database);
  });

  it('answers a request whose cash could not be set aside with nothing written, and keeps nothing set aside', async () => {
    const [optionId] = await newOptions(t.app, admin, 1);
    const user = await newUser(t.app);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/limit-orders',
      headers: bearer(user.token),
      payload: { optionId, side: 'YES', action: 'BUY', quantity: 1_000, limitPriceCents: 40 },
    });
    expect(res.statusCode).toBe(402);
    expect(res.json()).toMatchObject({ code: 'INSUFFICIENT_FUNDS', details: { neededCents: 40_000 } });
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM collateral_holds WHERE user_id = ${Number(user.id)}`.execute(t.database.db);
    expect(Number(rows[0]?.n)).toBe(0);
    expect(await balanceOf(t.app, user.token)).toEqual({ cashCents: 3_000, reservedCents: 0 });
  });
});

/**
 * Eight makers on twenty markets through two instances for a while, each pulling its quotes with cancel-all (or
 * amending some) and quoting both sides of five random markets in one batch, while takers trade: no deadlock, no
 * 5xx, no OPTION_BUSY, a stream follower equal to the order book, and the ledger whole after.
 */
describe('many makers on many markets through two instances', () => {
  let two: TwoInstances;
  const RUN_MS = Number(process.env.MAKERS_TEST_MS ?? 30_000);

  beforeAll(async () => {
    // Cash for the whole run: each maker's fills turn about 1,000 credits into shares in 30 s on a fast machine,
    // and a 402 for spent cash is a right answer, not what this run looks for.
    two = await createTwoInstances({ STARTING_BALANCE_CENTS: '100000000' });
  });
  afterAll(async () => {
    await closeTwoInstances(two);
  });

  it('never deadlocks nor refuses for want of a lock, and keeps the ledger and the books whole', async () => {
    const { a, b } = two;
    const apps = [a.app, b.app];
    const admin = await newAdmin(a.app);
    const options = await newOptions(a.app, admin, 20);
    const makers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => newUser(apps[i % 2] as FastifyInstance)),
    );
    const takers = await Promise.all(
      Array.from({ length: 4 }, (_, i) => newUser(apps[i % 2] as FastifyInstance)),
    );
    const deadlocksBefore = await deadlocks(a);
    const follower = await Follower.open(await streamUrl(b), `book:${options[0]}`);
    const refusals: string[] = [];
    let placed = 0;
    const deadline = Date.now() + RUN_MS;
    let seed = 1;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const makerLoop = async (maker: TestUser, app: FastifyInstance) => {
      while (Date.now() < deadline) {
        const res = await app.inject({
          method: 'POST',
          url: '/api/limit-orders/cancel-all',
          headers: bearer(maker.token),
          payload: {},
        });
        if (res.statusCode !== 200) refusals.push(`cancel-all ${res.statusCode} ${res.body}`);
        const orders = Array.from({ length: 5 }, () => {
          const optionId = options[Math.floor(random() * options.length)];
          const bid = 30 + Math.floor(random() * 30);
          return [
            {
              optionId,
              side: 'YES',
              action: 'BUY',
              quantity: 1 + Math.floor(random() * 4),
              limitPriceCents: bid,
            },
            {
              optionId,
              side: 'NO',
              action: 'BUY',
              quantity: 1 + Math.floor(random() * 4),
              limitPriceCents: 98 - bid,
            },
          ];
        }).flat();
        const sent = await batch(app, maker.token, orders);
        if (sent.status !== 200) refusals.push(`batch ${sent.status} ${sent.body}`);
        for (const item of sent.items) {
          if (item.status === 201) placed += 1;
          else
            refusals.push(`item ${item.status} ${item.error?.code} ${JSON.stringify(item.error?.details)}`);
        }
      }
    };
    const takerLoop = async (taker: TestUser, app: FastifyInstance) => {
      while (Date.now() < deadline) {
        const optionId = options[Math.floor(random() * options.length)];
        const res = await app.inject({
          method: 'POST',
          url: '/api/trades',
          headers: bearer(taker.token),
          payload: {
            optionId,
            side: random() < 0.5 ? 'YES' : 'NO',
            action: 'BUY',
            quantity: 1,
            priceCents: 99,
          },
        });
        if (res.statusCode >= 500 || res.json().code === 'OPTION_BUSY')
          refusals.push(`trade ${res.statusCode} ${res.body}`);
      }
    };
    await Promise.all([
      ...makers.map((maker, i) => makerLoop(maker, apps[i % 2] as FastifyInstance)),
      ...takers.map((taker, i) => takerLoop(taker, apps[i % 2] as FastifyInstance)),
    ]);

    expect(refusals.slice(0, 10)).toEqual([]);
    expect(placed).toBeGreaterThan(0);
    expect(await deadlocks(a)).toBe(deadlocksBefore);
    // No transaction of either instance failed (a deadlock, a lock timeout, anything else) and went again.
    for (const app of apps) {
      const metrics = (await app.inject({ url: '/metrics' })).body;
      expect(metrics).toMatch(/^exchange_order_batch_failures_total 0$/m);
    }
    // The follower has every change of the book it follows, and holds what GET /api/orderbook shows.
    const read = (await b.app.inject({ url: `/api/orderbook/${options[0]}` })).json();
    for (let i = 0; i < 100 && follower.seq < read.bookVersion; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(follower.gaps).toBe(0);
    expect(follower.seq).toBe(read.bookVersion);
    const levels = [
      ...read.yes.bids.map((l: Level) => ({ ...l, side: 'bid' })),
      ...read.yes.asks.map((l: Level) => ({ ...l, side: 'ask' })),
    ];
    expect(sorted(follower.book)).toEqual(sorted(bookOf(levels)));
    follower.close();
    await expectInvariants(a.database);
  }, 120_000);
});

/** `deadlock detected` counted by PostgreSQL for the test's database (0 on the embedded database, which has one connection). */
async function deadlocks(t: TestApp): Promise<number> {
  if (!TEST_DATABASE_URL) return 0;
  const { rows } = await sql<{ n: string }>`
    SELECT deadlocks AS n FROM pg_stat_database WHERE datname = current_database()`.execute(t.database.db);
  return Number(rows[0]?.n ?? 0);
}

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { AppError, toErrorResponse } from '../../src/platform/errors.js';
import { connectRedis } from '../../src/platform/runtime.js';
import {
  createTestApp,
  createTestDatabase,
  expectInvariants,
  type TestApp,
  type TestDatabase,
  testConfig,
} from '../support/app.js';
import { createMarket } from '../support/exchange.js';
import { bearer, newAdmin, newUser } from '../support/factories.js';

describe('a body over the limit', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => t.close());

  it("is answered 413 in a way Node's fetch receives, every time", async () => {
    const body = JSON.stringify({ email: 'big@example.com', password: 'x'.repeat(5_000_000) });
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${url}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    }
  });
});

describe("an option's order queue", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { MAX_QUEUED_ORDERS_PER_OPTION: '3' } });
  });
  afterAll(async () => {
    await expectInvariants(t.database);
    await t.close();
  });

  it('refuses orders past its bound at once with 503 ORDER_QUEUE_FULL and Retry-After, writing nothing of them', async () => {
    const admin = await newAdmin(t.app);
    const market = await createMarket(t.app, admin.token, {
      options: [{ label: 'Home', liquidityCents: 0 }],
    });
    const optionId = market.options[0]?.id as string;
    const users = await Promise.all(Array.from({ length: 4 }, () => newUser(t.app)));
    const trading = t.app.services.trading;
    const order = (i: number) => ({
      optionId: Number(optionId),
      kind: 'limit' as const,
      side: 'YES' as const,
      action: 'BUY' as const,
      quantity: 1,
      priceCents: 10 + (i % 30),
    });
    // One order first, so that the option's market is known and every order below goes straight to its queue.
    await trading.placeOrder(Number(users[0]?.id), order(0), null);
    // The option's lock held elsewhere for a moment (a slow batch of another instance): the orders queue up behind it.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const blocker = t.database.db.transaction().execute(async (trx) => {
      await sql`SELECT id FROM options WHERE id = ${Number(optionId)} FOR UPDATE`.execute(trx);
      locked();
      await held;
    });
    await lockTaken;
    const answers = Array.from({ length: 40 }, (_, i) =>
      trading.placeOrder(Number(users[i % users.length]?.id), order(i + 1), null).then(
        () => 201,
        (error: unknown) => error,
      ),
    );
    setTimeout(release, 300);
    const outcomes = await Promise.all(answers);
    await blocker;
    const full = outcomes.filter((outcome) => outcome !== 201);
    const placed = outcomes.filter((outcome) => outcome === 201).length + 1;
    // The first three wait in the queue; every one past the bound is refused at once.
    expect(full.length).toBe(40 - 3);
    for (const error of full) {
      expect(error).toBeInstanceOf(AppError);
      const { status, body } = toErrorResponse(error);
      expect({ status, code: body.code }).toEqual({ status: 503, code: 'ORDER_QUEUE_FULL' });
      expect((body.details as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0);
    }
    let stored = 0;
    for (const user of users) {
      const res = await t.app.inject({
        url: '/api/limit-orders?status=open&limit=200',
        headers: bearer(user.token),
      });
      stored += res.json().data.length;
    }
    expect(stored).toBe(placed);
  });
});

describe('Redis unreachable', () => {
  let db: TestDatabase;
  let app: Awaited<ReturnType<typeof buildApp>>;
  const redis = connectRedis('redis://127.0.0.1:1');
  beforeAll(async () => {
    db = await createTestDatabase();
    app = await buildApp({ config: testConfig({ RATE_LIMIT_MAX: '5' }), database: db.database, redis });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    redis?.disconnect();
    await db.drop();
  });

  it("serves every request, counting the rate limit in the instance's memory (and in /metrics)", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await app.inject({ url: '/api/events' })).statusCode);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses[5]).toBe(429);
    expect((await app.inject({ url: '/healthz' })).statusCode).not.toBe(500);
    // Another address (of this machine, which may read the metrics): this one has spent its budget.
    const metrics = await app.inject({ url: '/metrics', remoteAddress: '127.0.0.9' });
    expect(Number(/rate_limit_local_fallback_total (\d+)/.exec(metrics.body)?.[1])).toBeGreaterThanOrEqual(6);
  });
});

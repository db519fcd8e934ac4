import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { connectRedis } from '../../src/platform/runtime.js';
import {
  createTestApp,
  createTestDatabase,
  expectInvariants,
  type TestApp,
  type TestDatabase,
  testConfig,
} from '../support/app.js';
import { ADMIN_EMAIL, createMarket, limitOrder } from '../support/exchange.js';
import { bearer, newUser } from '../support/factories.js';

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
    t = await createTestApp({ env: { ADMIN_EMAIL, MAX_QUEUED_ORDERS_PER_OPTION: '3' } });
  });
  afterAll(async () => {
    await expectInvariants(t.database);
    await t.close();
  });

  it('refuses orders past its bound at once with 503 ORDER_QUEUE_FULL and Retry-After, writing nothing of them', async () => {
    const admin = await newUser(t.app, { email: ADMIN_EMAIL });
    const market = await createMarket(t.app, admin.token, {
      options: [{ label: 'Home', liquidityCents: 0 }],
    });
    const optionId = market.options[0]?.id as string;
    const users = await Promise.all(Array.from({ length: 4 }, () => newUser(t.app)));
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        limitOrder(t.app, users[i % users.length]?.token as string, {
          optionId,
          side: 'YES',
          action: 'BUY',
          quantity: 1,
          price: 10 + (i % 30),
        }),
      ),
    );
    const full = answers.filter((res) => res.statusCode === 503);
    const placed = answers.filter((res) => res.statusCode === 201);
    expect(full.length).toBeGreaterThan(0);
    expect(placed.length + full.length).toBe(40);
    for (const res of full) {
      expect(res.json()).toMatchObject({ code: 'ORDER_QUEUE_FULL' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    let stored = 0;
    for (const user of users) {
      const res = await t.app.inject({
        url: '/api/limit-orders?status=open&limit=200',
        headers: bearer(user.token),
      });
      stored += res.json().data.length;
    }
    expect(stored).toBe(placed.length);
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
    // Another address: this one has spent its budget.
    const metrics = await app.inject({ url: '/metrics', remoteAddress: '10.0.0.9' });
    expect(Number(/rate_limit_local_fallback_total (\d+)/.exec(metrics.body)?.[1])).toBeGreaterThanOrEqual(6);
  });
});

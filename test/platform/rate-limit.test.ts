import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestApp,
  createTestDatabase,
  TEST_REDIS_URL,
  type TestApp,
  type TestDatabase,
} from '../support/app.js';
import { bearer, newUser } from '../support/factories.js';

const limits = () => ({
  RATE_LIMIT_MAX: '60',
  RATE_LIMIT_BROWSE_MAX: '60',
  REDIS_KEY_PREFIX: `test:${randomBytes(6).toString('hex')}:`,
});

describe('rate limiting in one instance', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: limits() });
  });
  afterAll(() => t.close());

  it('answers the 61st request of a user within a minute with 429 and Retry-After', async () => {
    const user = await newUser(t.app, {});
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof t.app.inject>> | undefined;
    for (let i = 0; i < 61; i++) {
      last = await t.app.inject({
        url: '/api/me/streak',
        headers: bearer(user.token),
        remoteAddress: `10.1.0.${i}`,
      });
      statuses.push(last.statusCode);
      if (i === 0) {
        expect(last.headers['ratelimit-limit']).toBe('60');
        expect(last.headers['ratelimit-remaining']).toBe('59');
        expect(Number(last.headers['ratelimit-reset'])).toBeGreaterThan(0);
      }
    }
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
    expect(last?.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(last?.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('counts unauthenticated requests per address', async () => {
    for (let i = 0; i < 60; i++) {
      expect((await t.app.inject({ url: '/api/events?limit=1', remoteAddress: '10.2.0.1' })).statusCode).toBe(
        200,
      );
    }
    expect((await t.app.inject({ url: '/api/events?limit=1', remoteAddress: '10.2.0.1' })).statusCode).toBe(
      429,
    );
    expect((await t.app.inject({ url: '/api/events?limit=1', remoteAddress: '10.2.0.2' })).statusCode).toBe(
      200,
    );
  });

  it('ignores X-Forwarded-For unless a trusted proxy is configured', async () => {
    for (let i = 0; i < 60; i++) {
      await t.app.inject({
        url: '/api/events?limit=1',
        remoteAddress: '10.3.0.1',
        headers: { 'x-forwarded-for': `1.2.3.${i}` },
      });
    }
    const res = await t.app.inject({
      url: '/api/events?limit=1',
      remoteAddress: '10.3.0.1',
      headers: { 'x-forwarded-for': '9.9.9.9' },
    });
    expect(res.statusCode).toBe(429);
  });
});

/** The shared-budget test needs a Redis server (CI has one); without one it says so and is skipped. */
async function redisAvailable(): Promise<boolean> {
  const probe = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
const hasRedis = await redisAvailable();
if (!hasRedis) console.warn(`No Redis at ${TEST_REDIS_URL}: the cross-instance rate-limit test is skipped`);

describe.skipIf(!hasRedis)('rate limiting across two instances sharing Redis', () => {
  let db: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    db = await createTestDatabase();
    const env = limits();
    a = await createTestApp({ database: db, env, redis: true });
    b = await createTestApp({ database: db, env, redis: true });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await db.drop();
  });

  it('draws both instances from one budget per user', async () => {
    const user = await newUser(a.app);
    for (let i = 0; i < 60; i++) {
      const app = i % 2 === 0 ? a.app : b.app;
      const res = await app.inject({ url: '/api/me/streak', headers: bearer(user.token) });
      expect(res.statusCode).toBe(200);
    }
    const overA = await a.app.inject({ url: '/api/me/streak', headers: bearer(user.token) });
    const overB = await b.app.inject({ url: '/api/me/streak', headers: bearer(user.token) });
    expect(overA.statusCode).toBe(429);
    expect(overB.statusCode).toBe(429);
    expect(overB.headers['retry-after']).toBeDefined();
  });
});

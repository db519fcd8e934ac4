import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { uniqueEmail } from '../../support/factories.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    env: {
      LOGIN_MAX_FAILURES: '3',
      LOGIN_MAX_FAILURES_PER_ADDRESS: '6',
      LOGIN_MAX_FAILURES_PER_ACCOUNT: '9',
    },
  });
});
afterAll(() => t.close());

function login(email: string, password: string, remoteAddress: string, forwardedFor?: string) {
  return t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password },
    remoteAddress,
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
  });
}

function register(remoteAddress: string, forwardedFor?: string) {
  const email = uniqueEmail('owner');
  const password = 'the owner knows this one';
  return t.app
    .inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email, password },
      remoteAddress,
      headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    })
    .then((response) => {
      expect(response.statusCode).toBe(201);
      return { email, password };
    });
}

describe('an attack on one account', () => {
  it('lets the owner sign in from an address they used before while the attacker gets 429 with Retry-After', async () => {
    const owner = await register('10.60.0.1');
    // Three addresses, each failing until slowed down: nine failures for the account, its bound.
    for (let address = 1; address <= 3; address++) {
      for (let i = 0; i < 3; i++)
        expect((await login(owner.email, `guess ${i}`, `10.61.0.${address}`)).statusCode).toBe(401);
      const slowed = await login(owner.email, 'one more guess', `10.61.0.${address}`);
      expect(slowed.statusCode).toBe(429);
      expect(Number(slowed.headers['retry-after'])).toBeGreaterThan(0);
    }
    const fresh = await login(owner.email, 'a guess from a new address', '10.61.0.99');
    expect(fresh.statusCode).toBe(429);
    expect(Number(fresh.headers['retry-after'])).toBeGreaterThan(0);

    const own = await login(owner.email, owner.password, '10.60.0.1');
    expect(own.statusCode).toBe(200);
    // An address the account never signed in from waits like the attacker: the bound per account holds.
    expect((await login(owner.email, owner.password, '10.62.0.1')).statusCode).toBe(429);
  });

  it('doubles the delay with every further failure instead of a fixed wall', async () => {
    const owner = await register('10.63.0.1');
    for (let i = 0; i < 3; i++) await login(owner.email, `guess ${i}`, '10.64.0.1');
    const delays: number[] = [];
    for (let round = 0; round < 3; round++) {
      const refused = await login(owner.email, 'guess', '10.64.0.1');
      expect(refused.statusCode).toBe(429);
      delays.push(Number(refused.headers['retry-after']));
      // The wait is over: the next guess is heard, fails, and is slowed down twice as long.
      await sql`UPDATE login_throttle SET blocked_until = now() - interval '1 second'`.execute(t.database.db);
      expect((await login(owner.email, 'guess', '10.64.0.1')).statusCode).toBe(401);
    }
    expect(delays).toEqual([2, 4, 8]);
  });
});

describe('behind a proxy TRUST_PROXY does not name', () => {
  const proxy = '10.70.0.1';

  it('does not lock everyone behind it out when one client fails again and again', async () => {
    const neighbour = await register(proxy, '198.51.100.20');
    const victim = await register(proxy, '198.51.100.21');
    for (let i = 0; i < 12; i++) {
      await login(i % 2 ? victim.email : uniqueEmail(), `guess ${i}`, proxy, '203.0.113.66');
    }
    expect((await login(uniqueEmail(), 'guess', proxy, '203.0.113.66')).statusCode).toBe(429);
    expect((await login(neighbour.email, neighbour.password, proxy, '198.51.100.20')).statusCode).toBe(200);
    expect((await login(victim.email, victim.password, proxy, '198.51.100.21')).statusCode).toBe(200);
  });
});

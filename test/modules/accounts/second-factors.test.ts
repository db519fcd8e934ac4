import type { FastifyInstance } from 'fastify';
import { generate } from 'otplib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { bearer, newUser, type TestUser } from '../../support/factories.js';

/**
 * Second factors through HTTP: setting up an authenticator app, the two-step login with a code or a recovery code
 * (each recovery code once, no code twice), and a fresh factor demanded for each sensitive action: a key that may
 * trade, a password change, a webhook, removing the factor. The clock is moved on by whole TOTP steps, so that each
 * code the test sends is new.
 */

let t: TestApp;
let app: FastifyInstance;
let clock = Date.now();

beforeAll(async () => {
  t = await createTestApp();
  app = t.app;
});
afterAll(async () => {
  await t.close();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Moves the clock on (by a TOTP step by default), so that the next code is one not used before. */
function tick(ms = 30_000): void {
  clock += ms;
  if (!vi.isFakeTimers()) vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(clock);
}

async function code(secret: string): Promise<string> {
  return generate({ secret, epoch: Math.floor(clock / 1000) });
}

function post(token: string | null, url: string, payload: object = {}, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url,
    headers: { ...(token ? bearer(token) : {}), ...headers },
    payload,
  });
}

async function enrol(user: TestUser): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await post(user.token, '/api/me/second-factors/totp');
  expect(started.statusCode, started.body).toBe(201);
  const { secret, otpauthUri } = started.json();
  expect(otpauthUri).toMatch(/^otpauth:\/\/totp\//);
  tick();
  const confirmed = await post(user.token, '/api/me/second-factors/totp/confirm', {
    code: await code(secret),
    password: user.password,
  });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  return { secret, recoveryCodes: confirmed.json().recoveryCodes };
}

async function challenge(user: TestUser): Promise<string> {
  const res = await post(null, '/api/auth/login', { email: user.email, password: user.password });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({ secondFactorRequired: true, factors: ['totp'] });
  expect(res.json().token).toBeUndefined();
  return res.json().challengeToken;
}

describe('setting up an authenticator app', () => {
  it('takes a code from the app before it is in force, and answers ten recovery codes once', async () => {
    tick();
    const user = await newUser(app);
    const started = (await post(user.token, '/api/me/second-factors/totp')).json();
    const wrong = await post(user.token, '/api/me/second-factors/totp/confirm', {
      code: '000000',
      password: user.password,
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().code).toBe('INVALID_SECOND_FACTOR');
    // Not yet in force: login is one step.
    expect(
      (await post(null, '/api/auth/login', { email: user.email, password: user.password })).json().token,
    ).toBeTruthy();
    tick();
    const confirmed = await post(user.token, '/api/me/second-factors/totp/confirm', {
      code: await code(started.secret),
      password: user.password,
    });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json().recoveryCodes).toHaveLength(10);
    expect(new Set(confirmed.json().recoveryCodes).size).toBe(10);
    const status = await app.inject({ url: '/api/me/second-factors', headers: bearer(user.token) });
    expect(status.json()).toMatchObject({ totp: { enabled: true }, recoveryCodesLeft: 10 });
    expect((await post(user.token, '/api/me/second-factors/totp')).json().code).toBe('TOTP_ALREADY_ENABLED');
  });
});

describe('two-step login', () => {
  it('signs in with a code, never with the same code twice, nor with the password alone', async () => {
    tick();
    const user = await newUser(app);
    const { secret } = await enrol(user);
    tick();
    const first = await challenge(user);
    const now = await code(secret);
    const signedIn = await post(null, '/api/auth/login/second-factor', { challengeToken: first, code: now });
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expect(
      (await app.inject({ url: '/api/auth/me', headers: bearer(signedIn.json().token) })).statusCode,
    ).toBe(200);
    const replay = await post(null, '/api/auth/login/second-factor', {
      challengeToken: await challenge(user),
      code: now,
    });
    expect(replay.json().code).toBe('INVALID_SECOND_FACTOR');
    // A challenge is answered once.
    tick();
    const again = await post(null, '/api/auth/login/second-factor', {
      challengeToken: first,
      code: await code(secret),
    });
    expect(again.statusCode).toBe(401);
    expect(again.json().code).toBe('UNAUTHENTICATED');
  });

  it('uses each recovery code once', async () => {
    tick();
    const user = await newUser(app);
    const { recoveryCodes } = await enrol(user);
    const recoveryCode = recoveryCodes[3] as string;
    const used = await post(null, '/api/auth/login/second-factor', {
      challengeToken: await challenge(user),
      recoveryCode,
    });
    expect(used.statusCode, used.body).toBe(200);
    const twice = await post(null, '/api/auth/login/second-factor', {
      challengeToken: await challenge(user),
      recoveryCode,
    });
    expect(twice.json().code).toBe('INVALID_SECOND_FACTOR');
    const status = await app.inject({ url: '/api/me/second-factors', headers: bearer(used.json().token) });
    expect(status.json().recoveryCodesLeft).toBe(9);
  });

  it('spends a challenge after five wrong codes', async () => {
    tick();
    const user = await newUser(app);
    const { secret } = await enrol(user);
    const token = await challenge(user);
    for (let i = 0; i < 5; i++)
      expect(
        (await post(null, '/api/auth/login/second-factor', { challengeToken: token, code: '000000' }))
          .statusCode,
      ).toBe(401);
    tick();
    const right = await post(null, '/api/auth/login/second-factor', {
      challengeToken: token,
      code: await code(secret),
    });
    expect(right.json().code).toBe('UNAUTHENTICATED');
  });
});

describe('a fresh factor for sensitive actions', () => {
  it('is demanded for a trading key, the password, a webhook and removing the factor, and given by verify', async () => {
    tick();
    const user = await newUser(app);
    const { secret } = await enrol(user);
    // Confirming proved a factor: fresh for ten minutes.
    expect((await post(user.token, '/api/me/api-keys', { name: 'fresh' })).statusCode).toBe(201);
    tick(11 * 60_000);
    const sensitive: [string, object][] = [
      ['/api/me/api-keys', { name: 'trader', scopes: ['read', 'trade'] }],
      ['/api/me/api-keys', { name: 'everything' }],
      ['/api/me/password', { currentPassword: user.password, newPassword: 'another long password' }],
      ['/api/me/webhooks', { url: 'http://127.0.0.1:9/hook' }],
    ];
    for (const [url, payload] of sensitive) {
      const res = await post(user.token, url, payload);
      expect(res.statusCode, url).toBe(403);
      expect(res.json().code).toBe('FRESH_SECOND_FACTOR_REQUIRED');
    }
    const removal = await app.inject({
      method: 'DELETE',
      url: '/api/me/second-factors/totp',
      headers: bearer(user.token),
    });
    expect(removal.json().code).toBe('FRESH_SECOND_FACTOR_REQUIRED');
    // A key that cannot trade needs none.
    expect(
      (await post(user.token, '/api/me/api-keys', { name: 'reader', scopes: ['read'] })).statusCode,
    ).toBe(201);
    expect((await post(user.token, '/api/me/second-factors/verify', { code: '000000' })).statusCode).toBe(
      401,
    );
    tick();
    expect(
      (await post(user.token, '/api/me/second-factors/verify', { code: await code(secret) })).statusCode,
    ).toBe(204);
    for (const [url, payload] of sensitive) {
      const res = await post(user.token, url, payload);
      expect(res.statusCode, `${url} ${res.body}`).toBeLessThan(300);
    }
    const removed = await app.inject({
      method: 'DELETE',
      url: '/api/me/second-factors/totp',
      headers: bearer(user.token),
    });
    expect(removed.statusCode).toBe(204);
    const login = await post(null, '/api/auth/login', {
      email: user.email,
      password: 'another long password',
    });
    expect(login.json().token).toBeTruthy();
  });

  it('takes a code in X-Second-Factor, as an API key must', async () => {
    tick();
    const user = await newUser(app);
    const { secret } = await enrol(user);
    const key = (
      await post(user.token, '/api/me/api-keys', { name: 'admin key', scopes: ['read', 'trade', 'account'] })
    ).json().key;
    const refused = await post(key, '/api/me/api-keys', { name: 'bot' });
    expect(refused.json().code).toBe('FRESH_SECOND_FACTOR_REQUIRED');
    tick();
    const allowed = await post(
      key,
      '/api/me/api-keys',
      { name: 'bot', scopes: ['trade'] },
      { 'x-second-factor': await code(secret) },
    );
    expect(allowed.statusCode, allowed.body).toBe(201);
  });
});

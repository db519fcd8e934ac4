import type { FastifyInstance } from 'fastify';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { SoftwareAuthenticator } from '../../support/authenticator.js';
import { bearer, newUser, type TestUser } from '../../support/factories.js';

/**
 * An account's first second factor needs its current password besides the session: a stolen session alone cannot
 * put a factor of the thief's in force (and so lock the owner out of the sensitive actions). A missing or wrong
 * password is refused as a password change refuses it, counts as a failed login and is in the security log; once
 * the account has a factor, adding another needs a fresh factor instead.
 */

let t: TestApp;
let app: FastifyInstance;
let site: URL;

beforeAll(async () => {
  t = await createTestApp({ env: { LOGIN_MAX_FAILURES: '3' } });
  app = t.app;
  site = new URL(t.config.publicUrl);
});
afterAll(async () => {
  await t.close();
});

function post(token: string, url: string, payload: object = {}) {
  return app.inject({ method: 'POST', url, headers: bearer(token), payload });
}

async function status(user: TestUser) {
  return (await app.inject({ url: '/api/me/second-factors', headers: bearer(user.token) })).json();
}

async function startTotp(user: TestUser): Promise<string> {
  const started = await post(user.token, '/api/me/second-factors/totp');
  expect(started.statusCode, started.body).toBe(201);
  return started.json().secret;
}

const code = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) });

async function passkeyAnswer(user: TestUser) {
  const options = await post(user.token, '/api/me/passkeys/options');
  expect(options.statusCode, options.body).toBe(200);
  return new SoftwareAuthenticator(site.origin, site.hostname).create(options.json());
}

describe('the first second factor', () => {
  it('refuses an authenticator app confirmed without the password, or with a wrong one, as a password change does', async () => {
    const user = await newUser(app);
    const secret = await startTotp(user);
    const missing = await post(user.token, '/api/me/second-factors/totp/confirm', {
      code: await code(secret),
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'body.password', message: 'is required' }],
    });
    const wrong = await post(user.token, '/api/me/second-factors/totp/confirm', {
      code: await code(secret),
      password: 'not the password',
    });
    const wrongChange = await post(user.token, '/api/me/password', {
      currentPassword: 'not the password',
      newPassword: 'a new and long passphrase',
    });
    expect(wrong.statusCode).toBe(wrongChange.statusCode);
    expect(wrong.json().code).toBe(wrongChange.json().code);
    expect(wrong.json().details).toEqual([{ field: 'body.password', message: 'is not correct' }]);
    expect((await status(user)).totp).toBeNull();
    // Still one step: no factor is in force.
    const login = await app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: user.password },
    });
    expect(login.json().token).toBeTruthy();

    const right = await post(user.token, '/api/me/second-factors/totp/confirm', {
      code: await code(secret),
      password: user.password,
    });
    expect(right.statusCode, right.body).toBe(200);
    expect(right.json().recoveryCodes).toHaveLength(10);
    expect((await status(user)).totp).toMatchObject({ enabled: true });

    const log = (await app.inject({ url: '/api/me/security-log', headers: bearer(user.token) })).json().data;
    const refused = log.filter((e: { kind: string }) => e.kind === 'password_check_failed');
    expect(refused.map((e: { details: unknown }) => e.details)).toEqual([
      { action: 'password_change' },
      { action: 'totp_added' },
    ]);
  });

  it('refuses a first passkey registered without the password, or with a wrong one', async () => {
    const user = await newUser(app);
    const missing = await post(user.token, '/api/me/passkeys', {
      name: 'Laptop',
      response: await passkeyAnswer(user),
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().details).toEqual([{ field: 'body.password', message: 'is required' }]);
    const wrong = await post(user.token, '/api/me/passkeys', {
      name: 'Laptop',
      response: await passkeyAnswer(user),
      password: 'not the password',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().details).toEqual([{ field: 'body.password', message: 'is not correct' }]);
    expect((await status(user)).passkeys).toBe(0);

    const right = await post(user.token, '/api/me/passkeys', {
      name: 'Laptop',
      response: await passkeyAnswer(user),
      password: user.password,
    });
    expect(right.statusCode, right.body).toBe(201);
    expect(right.json().recoveryCodes).toHaveLength(10);
    expect((await status(user)).passkeys).toBe(1);
  });

  it('counts wrong passwords as failed logins: a stolen session cannot guess on', async () => {
    const user = await newUser(app);
    const secret = await startTotp(user);
    const answers: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await post(user.token, '/api/me/second-factors/totp/confirm', {
        code: await code(secret),
        password: `guess number ${i}`,
      });
      answers.push(res.statusCode);
    }
    expect(answers.slice(0, 3)).toEqual([400, 400, 400]);
    const last = await post(user.token, '/api/me/second-factors/totp/confirm', {
      code: await code(secret),
      password: user.password,
    });
    expect(last.statusCode).toBe(429);
    expect(last.headers['retry-after']).toBeDefined();
    expect((await status(user)).totp).toBeNull();
  });

  it('refuses an authenticator app added to a passkey account without a fresh factor', async () => {
    const user = await newUser(app);
    const first = await post(user.token, '/api/me/passkeys', {
      name: 'Laptop',
      response: await passkeyAnswer(user),
      password: user.password,
    });
    expect(first.statusCode, first.body).toBe(201);
    // A key that may manage the account is never fresh: what it does needs the factor in the request.
    const made = await post(user.token, '/api/me/api-keys', { name: 'account only', scopes: ['account'] });
    expect(made.statusCode, made.body).toBe(201);
    const key = made.json().key as string;
    const secret = await startTotp({ ...user, token: key });
    const refused = await post(key, '/api/me/second-factors/totp/confirm', {
      code: await code(secret),
      password: user.password,
    });
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json().code).toBe('FRESH_SECOND_FACTOR_REQUIRED');
    expect((await status(user)).totp).toBeNull();
    // The session that registered the passkey proved it: there the app is added.
    const added = await post(user.token, '/api/me/second-factors/totp/confirm', { code: await code(secret) });
    expect(added.statusCode, added.body).toBe(200);
    expect((await status(user)).totp).toMatchObject({ enabled: true });
  });

  it('asks no password once a factor is in force: a fresh factor stands in for it', async () => {
    const user = await newUser(app);
    const secret = await startTotp(user);
    const enabled = await post(user.token, '/api/me/second-factors/totp/confirm', {
      code: await code(secret),
      password: user.password,
    });
    expect(enabled.statusCode).toBe(200);
    // Confirming proved a factor for this session: the next factor needs no password.
    const added = await post(user.token, '/api/me/passkeys', {
      name: 'Phone',
      response: await passkeyAnswer(user),
    });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json().recoveryCodes).toEqual([]);
  });
});

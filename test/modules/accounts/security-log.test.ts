import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { SoftwareAuthenticator } from '../../support/authenticator.js';
import { bearer, newUser, type TestUser } from '../../support/factories.js';
import { type Mailbox, startMailbox } from '../../support/mailbox.js';

/**
 * The security log through HTTP: an entry for each kind of event (sign-ins and failed ones, sessions, keys,
 * factors, the password and the address, throttling), with the request's address and agent, newest first and
 * paged, and only the account's own.
 */

const AGENT = 'SecurityLogTest/1.0';
let t: TestApp;
let mailbox: Mailbox;

interface Entry {
  kind: string;
  address: string | null;
  userAgent: string | null;
  details: Record<string, unknown> | null;
}

beforeAll(async () => {
  mailbox = await startMailbox();
  t = await createTestApp({
    env: { SMTP_URL: mailbox.url, PUBLIC_URL: 'https://x.example', LOGIN_MAX_FAILURES: '3' },
  });
});
afterAll(async () => {
  await t.close();
  await mailbox.close();
});

const send = (method: 'POST' | 'PATCH' | 'DELETE', url: string, token: string | null, payload?: object) =>
  t.app.inject({
    method,
    url,
    payload,
    headers: { 'user-agent': AGENT, ...(token ? bearer(token) : {}) },
  });
const post = (url: string, token: string | null, payload: object = {}) => send('POST', url, token, payload);

async function log(token: string): Promise<Entry[]> {
  const res = await t.app.inject({ url: '/api/me/security-log?limit=200', headers: bearer(token) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

/** The kinds of the account's entries, oldest first. */
const kinds = async (token: string) => (await log(token)).map((entry) => entry.kind).reverse();

async function verifiedUser(): Promise<TestUser> {
  const user = await newUser(t.app);
  const mail = await mailbox.next(user.email);
  expect((await post('/api/auth/verify-email', null, { token: mailbox.linkToken(mail) })).statusCode).toBe(
    200,
  );
  return user;
}

const login = (user: TestUser, password = user.password) =>
  post('/api/auth/login', null, { email: user.email, password });

describe('the security log', () => {
  it('records sign-ins and failed ones with address and agent, and the address proven', async () => {
    const user = await verifiedUser();
    expect((await login(user, 'not the password')).statusCode).toBe(401);
    const signedIn = await login(user);
    expect(signedIn.statusCode).toBe(200);
    const entries = await log(user.token);
    expect(entries.map((e) => e.kind).reverse()).toEqual([
      'account_created',
      'email_verified',
      'login_failed',
      'login',
    ]);
    expect(entries[0]).toMatchObject({ userAgent: AGENT, details: { method: 'password' } });
    expect(entries[0]?.address).toMatch(/127\.0\.0\.1/);
    expect(entries[1]).toMatchObject({ kind: 'login_failed', details: { step: 'password' } });
    // Another account sees none of it.
    const other = await newUser(t.app);
    expect(await kinds(other.token)).toEqual(['account_created']);
  });

  it('records a login throttled once a minute, however often it is refused', async () => {
    const user = await verifiedUser();
    for (let i = 0; i < 3; i++) expect((await login(user, 'wrong guess')).statusCode).toBe(401);
    expect((await login(user, 'wrong guess')).statusCode).toBe(429);
    expect((await login(user, 'wrong guess')).statusCode).toBe(429);
    const throttled = (await kinds(user.token)).filter((kind) => kind === 'login_throttled');
    expect(throttled).toHaveLength(1);
  });

  it('records keys made, changed and revoked, and sessions ended', async () => {
    const user = await verifiedUser();
    const key = await post('/api/me/api-keys', user.token, { name: 'bot', scopes: ['read'] });
    expect(key.statusCode).toBe(201);
    const id = key.json().id;
    expect((await send('PATCH', `/api/me/api-keys/${id}`, user.token, { name: 'reader' })).statusCode).toBe(
      200,
    );
    expect((await send('DELETE', `/api/me/api-keys/${id}`, user.token)).statusCode).toBe(204);
    const second = (await login(user)).json().token;
    const sessions = await t.app.inject({ url: '/api/me/sessions', headers: bearer(user.token) });
    const other = sessions.json().data.find((s: { current: boolean }) => !s.current);
    expect((await send('DELETE', `/api/me/sessions/${other.id}`, user.token)).statusCode).toBe(204);
    expect((await post('/api/auth/logout', user.token)).statusCode).toBe(204);
    expect(second).toBeTruthy();
    const fresh = (await login(user)).json().token;
    const entries = await log(fresh);
    expect(
      entries
        .map((e) => e.kind)
        .reverse()
        .slice(2),
    ).toEqual([
      'api_key_created',
      'api_key_changed',
      'api_key_revoked',
      'login',
      'session_ended',
      'session_ended',
      'login',
    ]);
    expect(entries.find((e) => e.kind === 'api_key_created')?.details).toEqual({
      keyId: id,
      name: 'bot',
      scopes: ['read'],
    });
    expect(entries.find((e) => e.kind === 'api_key_changed')?.details).toEqual({
      keyId: id,
      changed: ['name'],
    });
  });

  it('records factors added, proved, used and removed, and a wrong code', async () => {
    const user = await verifiedUser();
    const { secret } = (await post('/api/me/second-factors/totp', user.token)).json();
    const epoch = Math.floor(Date.now() / 1000);
    const confirm = await post('/api/me/second-factors/totp/confirm', user.token, {
      code: await generate({ secret, epoch: epoch - 30 }),
      password: user.password,
    });
    expect(confirm.statusCode, confirm.body).toBe(200);
    const challengeToken = (await login(user)).json().challengeToken;
    const wrong = await post('/api/auth/login/second-factor', null, { challengeToken, code: '000000' });
    expect(wrong.json().code).toBe('INVALID_SECOND_FACTOR');
    const right = await post('/api/auth/login/second-factor', null, {
      challengeToken,
      code: await generate({ secret, epoch }),
    });
    expect(right.statusCode, right.body).toBe(200);
    const token = right.json().token;
    const key = new SoftwareAuthenticator('https://x.example', 'x.example');
    const options = (await post('/api/me/passkeys/options', token)).json();
    const added = await post('/api/me/passkeys', token, { name: 'Phone', response: key.create(options) });
    expect(added.statusCode, added.body).toBe(201);
    const passwordless = await post('/api/auth/passkey', null, {
      response: key.get((await post('/api/auth/passkey/options', null)).json()),
    });
    expect(passwordless.statusCode, passwordless.body).toBe(200);
    const proofOptions = (await post('/api/me/second-factors/passkey-options', token)).json();
    expect(
      (await post('/api/me/second-factors/verify', token, { passkey: key.get(proofOptions) })).statusCode,
    ).toBe(204);
    expect((await send('DELETE', `/api/me/passkeys/${added.json().passkey.id}`, token)).statusCode).toBe(204);
    expect((await send('DELETE', '/api/me/second-factors/totp', token)).statusCode).toBe(204);
    const entries = await log(token);
    expect(
      entries
        .map((e) => e.kind)
        .reverse()
        .slice(2),
    ).toEqual([
      'totp_added',
      'login_challenged',
      'login_failed',
      'login',
      'passkey_added',
      'login',
      'factor_verified',
      'passkey_removed',
      'totp_removed',
    ]);
    const logins = entries.filter((e) => e.kind === 'login').map((e) => e.details?.method);
    expect(logins).toEqual(['passkey', 'password+totp']);
    expect(entries.find((e) => e.kind === 'login_failed')?.details).toEqual({ step: 'totp' });
  });

  it('records the password changed and reset, and pages newest first', async () => {
    const user = await verifiedUser();
    const changed = await post('/api/me/password', user.token, {
      currentPassword: user.password,
      newPassword: 'a brand new passphrase',
    });
    expect(changed.statusCode, changed.body).toBe(200);
    await post('/api/auth/forgot-password', null, { email: user.email });
    const mail = await mailbox.next(user.email);
    const reset = await post('/api/auth/reset-password', null, {
      token: mailbox.linkToken(mail),
      password: 'yet another passphrase',
    });
    expect(reset.statusCode, reset.body).toBe(200);
    const token = (await login(user, 'yet another passphrase')).json().token;
    expect(await kinds(token)).toEqual([
      'account_created',
      'email_verified',
      'password_changed',
      'password_reset',
      'login',
    ]);
    const first = await t.app.inject({ url: '/api/me/security-log?limit=2', headers: bearer(token) });
    expect(first.json().data.map((e: Entry) => e.kind)).toEqual(['login', 'password_reset']);
    const next = await t.app.inject({
      url: `/api/me/security-log?limit=2&cursor=${first.json().nextCursor}`,
      headers: bearer(token),
    });
    expect(next.json().data.map((e: Entry) => e.kind)).toEqual(['password_changed', 'email_verified']);
  });
});

describe('throttling of requests', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({ env: { RATE_LIMIT_MAX: '5' } });
  });
  afterAll(async () => {
    await limited.close();
  });

  it('records a key refused by its request budget, once a minute', async () => {
    const user = await newUser(limited.app);
    const key = (
      await limited.app.inject({
        method: 'POST',
        url: '/api/me/api-keys',
        headers: bearer(user.token),
        payload: { name: 'bot' },
      })
    ).json().key;
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++)
      statuses.push((await limited.app.inject({ url: '/api/me/streak', headers: bearer(key) })).statusCode);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(1);
    const res = await limited.app.inject({ url: '/api/me/security-log', headers: bearer(user.token) });
    const entries = res.json().data as Entry[];
    expect(entries.filter((e) => e.kind === 'rate_limited')).toEqual([
      expect.objectContaining({ details: { code: 'RATE_LIMITED' } }),
    ]);
  });
});

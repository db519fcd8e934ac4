import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { bearer, newUser, uniqueEmail } from '../../support/factories.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ env: { STARTING_BALANCE_CENTS: '100000' } });
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

describe('registration', () => {
  it('creates an account with the starting balance and a session token', async () => {
    const email = uniqueEmail();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: email.toUpperCase(), password: 'a long enough password', firstName: 'Ada' },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.user).toMatchObject({ email, firstName: 'Ada', role: 'user' });
    expect(body.token).toMatch(/^pmx_sess_/);
    const me = await t.app.inject({ url: '/api/auth/me', headers: bearer(body.token) });
    expect(me.statusCode).toBe(200);
    expect(me.json().balance).toEqual({ cashCents: 100000, reservedCents: 0 });
  });

  it('rejects a duplicate email with 409', async () => {
    const user = await newUser(t.app);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: user.email, password: 'another strong password' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'EMAIL_TAKEN' });
  });

  it.each([
    [{ email: 'not-an-email', password: 'longenough' }, 'body.email'],
    [{ email: 'a@b.co', password: 'short' }, 'body.password'],
    [{ email: 'a@b.co', password: 'x'.repeat(129) }, 'body.password'],
    [{ password: 'longenough' }, 'body.email'],
    [{ email: 'a@b.co', password: 12345678 }, 'body.password'],
    [{ email: 'a@b.co', password: 'longenough', isAdmin: true }, 'body.isAdmin'],
  ])('rejects %j with a 400 naming the field', async (payload, field) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/register', payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_FAILED');
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('rejects an unknown referral code and an unknown invite code with 400', async () => {
    for (const extra of [{ referralCode: 'NOPE1234' }, { inviteCode: 'NOPE1234' }]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { email: uniqueEmail(), password: 'a long enough password', ...extra },
      });
      expect(res.statusCode).toBe(400);
    }
  });

  it('never makes the configured admin email an admin (operators are granted the role)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: 'boss@example.com', password: 'a long enough password' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().user.role).toBe('user');
  });
});

describe('login, sessions and API keys', () => {
  it('register → login → create API key → /api/auth/me with that key', async () => {
    const user = await newUser(t.app);
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: user.password },
    });
    expect(login.statusCode).toBe(200);
    const session = login.json();
    expect(session.streak).toMatchObject({ current: 1, longest: 1, awardedToday: true, awardedCents: 100 });

    const created = await t.app.inject({
      method: 'POST',
      url: '/api/me/api-keys',
      headers: bearer(session.token),
      payload: { name: 'my bot' },
    });
    expect(created.statusCode).toBe(201);
    const { key, id, prefix } = created.json();
    expect(key).toMatch(/^pmx_live_[A-Za-z0-9_-]{43}$/);
    expect(key.startsWith(prefix)).toBe(true);

    const me = await t.app.inject({ url: '/api/auth/me', headers: bearer(key) });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ id: user.id, email: user.email });
    expect(me.json().balance.cashCents).toBe(100100);

    const list = await t.app.inject({ url: '/api/me/api-keys', headers: bearer(key) });
    expect(list.json().data).toHaveLength(1);
    expect(list.json().data[0]).not.toHaveProperty('key');
    expect(list.json().data[0].lastUsedAt).not.toBeNull();

    const revoked = await t.app.inject({
      method: 'DELETE',
      url: `/api/me/api-keys/${id}`,
      headers: bearer(session.token),
    });
    expect(revoked.statusCode).toBe(204);
    const after = await t.app.inject({ url: '/api/auth/me', headers: bearer(key) });
    expect(after.statusCode).toBe(401);
    expect(after.json().code).toBe('UNAUTHENTICATED');
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/me/api-keys/${id}`,
      headers: bearer(session.token),
    });
    expect(again.statusCode).toBe(404);
  });

  it('answers 401 JSON for no key, a wrong key and a malformed header', async () => {
    for (const headers of [
      {},
      bearer('pmx_live_wrongwrongwrongwrongwrongwrongwrongwrongwro'),
      bearer('garbage'),
      { authorization: 'Basic abc' },
    ]) {
      const res = await t.app.inject({ url: '/api/auth/me', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
      expect(typeof res.json().error).toBe('string');
    }
  });

  it('gives one generic 401 for a wrong password or an unknown email', async () => {
    const user = await newUser(t.app);
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: 'not the password' },
    });
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: uniqueEmail(), password: 'not the password' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
  });

  it('logout revokes the session token', async () => {
    const user = await newUser(t.app);
    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(user.token) });
    expect(out.statusCode).toBe(204);
    const me = await t.app.inject({ url: '/api/auth/me', headers: bearer(user.token) });
    expect(me.statusCode).toBe(401);
  });

  it('awards the streak once per day and reports the next bonus', async () => {
    const user = await newUser(t.app);
    const before = await t.app.inject({ url: '/api/me/streak', headers: bearer(user.token) });
    expect(before.json()).toMatchObject({
      current: 0,
      longest: 0,
      awardedToday: false,
      nextBonus: { day: 1, bonusCents: 100 },
    });
    const login = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: user.email, password: user.password },
      });
    expect((await login()).json().streak.awardedCents).toBe(100);
    expect((await login()).json().streak.awardedCents).toBe(0);
    const after = await t.app.inject({ url: '/api/me/streak', headers: bearer(user.token) });
    expect(after.json()).toMatchObject({
      current: 1,
      longest: 1,
      awardedToday: true,
      nextBonus: { day: 2, bonusCents: 150 },
    });
    const me = await t.app.inject({ url: '/api/auth/me', headers: bearer(user.token) });
    expect(me.json().balance.cashCents).toBe(100100);
  });

  it('slows down repeated failures for an account from one address with 429 and Retry-After, not the owner elsewhere', async () => {
    const user = await newUser(t.app);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: user.email, password: 'wrong password' },
        remoteAddress: '10.9.0.1',
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const right = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: user.password },
      remoteAddress: '10.9.0.1',
    });
    expect(right.statusCode).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    const elsewhere = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: user.password },
      remoteAddress: '10.9.1.1',
    });
    expect(elsewhere.statusCode).toBe(200);
  });
});

describe('the error model', () => {
  it('answers malformed JSON, wrong content types, oversized bodies and unknown routes with JSON errors', async () => {
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().code).toBe('MALFORMED_BODY');

    const text = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');

    const huge = await t.app.inject({
      method: 'POST',
      url: '/api/auth/register',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'a@b.co', password: 'x'.repeat(200_000) }),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().code).toBe('PAYLOAD_TOO_LARGE');

    const missing = await t.app.inject({ url: '/api/nothing/here' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().code).toBe('NOT_FOUND');
    expect(missing.headers['ratelimit-limit']).toBeDefined();

    const badId = await t.app.inject({ method: 'DELETE', url: '/api/me/api-keys/abc', headers: {} });
    expect(badId.statusCode).toBe(401);
  });

  it('serves health, readiness, metrics, the OpenAPI document and the docs page', async () => {
    expect((await t.app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    const metrics = await t.app.inject({ url: '/metrics' });
    expect(metrics.body).toContain('http_request_duration_seconds');
    const spec = (await t.app.inject({ url: '/api/openapi.json' })).json();
    expect(spec.openapi).toBe('3.1.0');
    expect(spec.paths['/api/auth/register'].post).toBeDefined();
    expect((await t.app.inject({ url: '/docs/' })).statusCode).toBe(200);
    const res = await t.app.inject({ url: '/healthz' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-request-id']).toBeDefined();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectInvariants, type TestApp } from '../../support/app.js';
import { bearer, newUser, type TestUser } from '../../support/factories.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ env: { LOGIN_MAX_FAILURES: '3' } });
});
afterAll(async () => {
  await expectInvariants(t.database);
  await t.close();
});

async function login(user: TestUser, password = user.password, userAgent = 'TestPhone/1.0') {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { 'user-agent': userAgent },
    remoteAddress: '10.1.2.3',
    payload: { email: user.email, password },
  });
  return res;
}

async function sessionsOf(token: string) {
  const res = await t.app.inject({ url: '/api/me/sessions', headers: bearer(token) });
  expect(res.statusCode).toBe(200);
  return res.json().data as {
    id: string;
    current: boolean;
    userAgent: string | null;
    createdFrom: string | null;
    lastUsedAt: string | null;
    lastUsedFrom: string | null;
  }[];
}

function changePassword(token: string, currentPassword: string, newPassword: string) {
  return t.app.inject({
    method: 'POST',
    url: '/api/me/password',
    headers: bearer(token),
    payload: { currentPassword, newPassword },
  });
}

describe('signed-in sessions', () => {
  it('lists each session with where it signed in from and when it was last used, the current one marked', async () => {
    const user = await newUser(t.app);
    const phone = (await login(user)).json().token as string;
    const sessions = await sessionsOf(phone);
    expect(sessions).toHaveLength(2);
    const current = sessions.find((s) => s.current);
    expect(current).toMatchObject({
      userAgent: 'TestPhone/1.0',
      createdFrom: '10.1.2.3',
      lastUsedFrom: '10.1.2.3',
    });
    expect(Date.parse(current?.lastUsedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(sessions.filter((s) => !s.current)).toHaveLength(1);
  });

  it('ends another session: its token stops working at once, the others go on', async () => {
    const user = await newUser(t.app);
    const phone = (await login(user)).json().token as string;
    const phoneId = (await sessionsOf(phone)).find((s) => s.current)?.id;
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/me/sessions/${phoneId}`,
      headers: bearer(user.token),
    });
    expect(res.statusCode).toBe(204);
    expect((await t.app.inject({ url: '/api/auth/me', headers: bearer(phone) })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/api/auth/me', headers: bearer(user.token) })).statusCode).toBe(200);
    expect((await sessionsOf(user.token)).map((s) => s.id)).not.toContain(phoneId);
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/me/sessions/${phoneId}`,
      headers: bearer(user.token),
    });
    expect(again.statusCode).toBe(404);
  });

  it("answers 404 for another user's session and for a malformed id with 400", async () => {
    const owner = await newUser(t.app);
    const intruder = await newUser(t.app);
    const ownerSession = (await sessionsOf(owner.token))[0]?.id;
    const res = await t.app.inject({
      method: 'DELETE',
      url: `/api/me/sessions/${ownerSession}`,
      headers: bearer(intruder.token),
    });
    expect(res.statusCode).toBe(404);
    expect((await t.app.inject({ url: '/api/auth/me', headers: bearer(owner.token) })).statusCode).toBe(200);
    const bad = await t.app.inject({
      method: 'DELETE',
      url: '/api/me/sessions/abc',
      headers: bearer(owner.token),
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('VALIDATION_FAILED');
  });

  it('shows where and when an API key was last used', async () => {
    const user = await newUser(t.app);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/me/api-keys',
      headers: bearer(user.token),
      payload: { name: 'bot' },
    });
    const key = created.json().key as string;
    expect(created.json()).toMatchObject({ lastUsedAt: null, lastUsedFrom: null });
    await t.app.inject({ url: '/api/positions', headers: bearer(key), remoteAddress: '10.9.8.7' });
    const keys = await t.app.inject({ url: '/api/me/api-keys', headers: bearer(user.token) });
    expect(keys.json().data[0]).toMatchObject({ name: 'bot', lastUsedFrom: '10.9.8.7' });
    expect(keys.json().data[0].lastUsedAt).not.toBeNull();
  });
});

describe('changing the password', () => {
  it('needs the current password, keeps this session, ends every other one, and the new password logs in', async () => {
    const user = await newUser(t.app);
    const phone = (await login(user)).json().token as string;
    const laptop = (await login(user, user.password, 'Laptop')).json().token as string;
    const res = await changePassword(laptop, user.password, 'a brand new password');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ endedSessions: 2 });
    for (const token of [user.token, phone]) {
      expect((await t.app.inject({ url: '/api/auth/me', headers: bearer(token) })).statusCode).toBe(401);
    }
    expect((await t.app.inject({ url: '/api/auth/me', headers: bearer(laptop) })).statusCode).toBe(200);
    expect(await sessionsOf(laptop)).toHaveLength(1);
    expect((await login(user)).statusCode).toBe(401);
    expect((await login(user, 'a brand new password')).statusCode).toBe(200);
  });

  it('refuses a wrong current password with 400 naming the field, and throttles repeated guesses', async () => {
    const user = await newUser(t.app);
    const wrong = await changePassword(user.token, 'not my password', 'another password');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().details).toEqual([{ field: 'body.currentPassword', message: 'is not correct' }]);
    await changePassword(user.token, 'still wrong', 'another password');
    await changePassword(user.token, 'wrong again', 'another password');
    const throttled = await changePassword(user.token, user.password, 'another password');
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBeDefined();
    expect((await t.app.inject({ url: '/api/auth/me', headers: bearer(user.token) })).statusCode).toBe(200);
  });

  it.each([
    [{ currentPassword: 'x', newPassword: 'short' }, 'body.newPassword'],
    [{ newPassword: 'long enough password' }, 'body.currentPassword'],
    [{ currentPassword: 'x', newPassword: 'long enough password', extra: 1 }, 'body.extra'],
  ])('rejects %j with a 400 naming the field', async (payload, field) => {
    const user = await newUser(t.app);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/me/password',
      headers: bearer(user.token),
      payload,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses the same password again, and a change made with an API key ends every session', async () => {
    const user = await newUser(t.app);
    const same = await changePassword(user.token, user.password, user.password);
    expect(same.statusCode).toBe(400);
    const key = (
      await t.app.inject({
        method: 'POST',
        url: '/api/me/api-keys',
        headers: bearer(user.token),
        payload: { name: 'bot' },
      })
    ).json().key as string;
    const res = await changePassword(key, user.password, 'changed by a script');
    expect(res.json()).toEqual({ endedSessions: 1 });
    expect((await t.app.inject({ url: '/api/auth/me', headers: bearer(user.token) })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/api/auth/me', headers: bearer(key) })).statusCode).toBe(200);
  });
});

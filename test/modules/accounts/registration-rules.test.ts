import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../support/app.js';
import { bearer, newUser, uniqueEmail } from '../../support/factories.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

function register(payload: Record<string, unknown>) {
  return t.app.inject({ method: 'POST', url: '/api/auth/register', payload });
}

describe('passwords that are easy to guess', () => {
  const email = 'margaret.hamilton@example.com';

  it.each([['password'], ['12345678'], ['        '], [email], ['margaret.hamilton']])(
    'refuses %j with 400 WEAK_PASSWORD and says why',
    async (password) => {
      const res = await register({ email, password, firstName: 'Margaret' });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('WEAK_PASSWORD');
      const [problem] = res.json().details as { field: string; message: string }[];
      expect(problem?.field).toBe('body.password');
      expect(problem?.message.length).toBeGreaterThan(10);
    },
  );

  it('refuses a weak new password when changing it, and judges one for the forms without storing it', async () => {
    const user = await newUser(t.app);
    const change = await t.app.inject({
      method: 'POST',
      url: '/api/me/password',
      headers: bearer(user.token),
      payload: { currentPassword: user.password, newPassword: user.email },
    });
    expect(change.statusCode).toBe(400);
    expect(change.json()).toMatchObject({ code: 'WEAK_PASSWORD', details: [{ field: 'body.newPassword' }] });

    const judge = (password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/auth/password-strength',
        payload: { password, email: 'ada@example.com', firstName: 'Ada' },
      });
    expect((await judge('ada@example.com')).json()).toMatchObject({ score: 0, acceptable: false });
    const strong = (await judge('quiet orchards hum at dusk')).json();
    expect(strong).toMatchObject({ acceptable: true, warning: null, suggestions: [] });
  });
});

describe('reserved usernames', () => {
  it.each([
    'admin',
    'Administrator',
    'adm1n',
    'ADM1N',
    'support',
    'suppport',
    'supp0rt_team',
    'root',
    'r00t',
    'moderator',
    'system',
    'official',
    '0fficial_news',
    'admin_bob',
  ])('refuses %s with 409 USERNAME_RESERVED', async (username) => {
    const res = await register({ email: uniqueEmail(), password: 'correct horse battery', username });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('USERNAME_RESERVED');
  });

  it('refuses Unicode look-alikes with 400 and keeps ordinary names such as badminton', async () => {
    for (const username of ['аdmin', 'ａｄｍｉｎ']) {
      const res = await register({ email: uniqueEmail(), password: 'correct horse battery', username });
      expect(res.statusCode).toBe(400);
    }
    const fine = await register({
      email: uniqueEmail(),
      password: 'correct horse battery',
      username: 'badminton',
    });
    expect(fine.statusCode).toBe(201);
  });

  it('never derives a reserved name from the email', async () => {
    const res = await register({
      email: `admin@x${Date.now()}.example`,
      password: 'correct horse battery',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().user.username).toMatch(/^trader\d+$/);
  });
});

describe('answers that carry secrets', () => {
  it('are never stored: Cache-Control no-store on tokens, API keys and signed-in answers', async () => {
    const registered = await register({ email: uniqueEmail(), password: 'correct horse battery' });
    expect(registered.headers['cache-control']).toBe('no-store');
    const { token, user } = registered.json();
    const loggedIn = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: 'correct horse battery' },
    });
    expect(loggedIn.headers['cache-control']).toBe('no-store');
    const key = await t.app.inject({
      method: 'POST',
      url: '/api/me/api-keys',
      headers: bearer(token),
      payload: { name: 'bot' },
    });
    expect(key.statusCode).toBe(201);
    expect(key.headers['cache-control']).toBe('no-store');
    const hook = await t.app.inject({
      method: 'POST',
      url: '/api/me/webhooks',
      headers: bearer(token),
      payload: { url: 'https://hooks.example.com/in' },
    });
    expect(hook.headers['cache-control']).toBe('no-store');
    const me = await t.app.inject({ url: '/api/auth/me', headers: bearer(token) });
    expect(me.headers['cache-control']).toBe('no-store');
    const publicList = await t.app.inject({ url: '/api/events?limit=1' });
    expect(publicList.headers['cache-control']).toBeUndefined();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { bearer, newUser } from '../support/factories.js';

/** A user's browser sessions and their API keys draw from two budgets of RATE_LIMIT_MAX each. */
describe('rate-limit budgets of a user', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_MAX: '5' } });
  });
  afterAll(() => t.close());

  const streak = (token: string) => t.app.inject({ url: '/api/me/streak', headers: bearer(token) });

  it('keeps an API key working when the sessions have spent theirs, and the other way round', async () => {
    const user = await newUser(t.app);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/me/api-keys',
      headers: bearer(user.token),
      payload: { name: 'bot' },
    });
    const key: string = created.json().key;
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: user.password },
    });
    const secondSession: string = login.json().token;

    // The sessions share one budget: the key creation above and four reads spend it, in two browsers.
    for (let i = 0; i < 4; i++)
      expect((await streak(i % 2 ? secondSession : user.token)).statusCode).toBe(200);
    const refused = await streak(secondSession);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED' });

    // The key's budget is untouched, and spending it does not give the sessions more.
    const first = await streak(key);
    expect(first.statusCode).toBe(200);
    expect(first.headers['ratelimit-remaining']).toBe('4');
    for (let i = 0; i < 4; i++) expect((await streak(key)).statusCode).toBe(200);
    expect((await streak(key)).statusCode).toBe(429);
    expect((await streak(user.token)).statusCode).toBe(429);
  });
});

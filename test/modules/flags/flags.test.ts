import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestDatabase, type TestApp, type TestDatabase } from '../../support/app.js';
import { bearer, newAdmin, newUser, type TestUser } from '../../support/factories.js';

describe('feature flags', () => {
  let t: TestApp;
  let admin: TestUser;
  let trader: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await newAdmin(t.app);
    trader = await newUser(t.app);
  });
  afterAll(() => t.close());

  it('publishes the seeded flags to anyone: money switches off, copy trading on', async () => {
    const res = await t.app.inject({ url: '/api/flags' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      deposits: false,
      withdrawals: false,
      cricketLive: false,
      copyTrading: true,
      // on in the table, but no AI provider is configured here
      newsSummary: false,
      // no SMTP_URL here: addresses are not proven
      addressesVerified: false,
    });
  });

  it('lets an admin read every flag with why it is off', async () => {
    const res = await t.app.inject({ url: '/api/admin/flags', headers: bearer(admin.token) });
    expect(res.statusCode).toBe(200);
    const byKey = Object.fromEntries(res.json().data.map((f: { key: string }) => [f.key, f]));
    expect(byKey.newsSummary).toMatchObject({ enabled: true, effective: false });
    expect(byKey.newsSummary.blockedBy).toMatch(/AI_BASE_URL/);
    expect(byKey.deposits).toMatchObject({
      enabled: false,
      effective: false,
      blockedBy: null,
      updatedBy: null,
    });
  });

  it('lets an admin switch a flag, recording who did it', async () => {
    const off = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/flags/copyTrading',
      headers: bearer(admin.token),
      payload: { enabled: false },
    });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({
      key: 'copyTrading',
      enabled: false,
      effective: false,
      updatedBy: admin.id,
    });
    expect((await t.app.inject({ url: '/api/flags' })).json().copyTrading).toBe(false);

    await t.app.inject({
      method: 'PUT',
      url: '/api/admin/flags/copyTrading',
      headers: bearer(admin.token),
      payload: { enabled: true },
    });
    expect((await t.app.inject({ url: '/api/flags' })).json().copyTrading).toBe(true);
  });

  it('keeps a flag with a missing provider effectively off even when enabled', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/flags/cricketLive',
      headers: bearer(admin.token),
      payload: { enabled: true },
    });
    expect(res.json()).toMatchObject({ enabled: true, effective: false });
    expect(res.json().blockedBy).toMatch(/CRICKET_API_URL/);
    expect((await t.app.inject({ url: '/api/flags' })).json().cricketLive).toBe(false);
  });

  it('refuses non-admins, unknown keys and bad bodies', async () => {
    const put = (key: string, payload: unknown, token = admin.token) =>
      t.app.inject({
        method: 'PUT',
        url: `/api/admin/flags/${key}`,
        headers: bearer(token),
        payload: payload as object,
      });
    expect((await put('deposits', { enabled: true }, trader.token)).statusCode).toBe(403);
    expect((await t.app.inject({ url: '/api/admin/flags' })).statusCode).toBe(401);
    expect((await put('noSuchFlag', { enabled: true })).statusCode).toBe(404);
    for (const body of [{}, { enabled: 'yes' }, { enabled: true, extra: 1 }]) {
      const res = await put('deposits', body);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
    expect((await put('Bad-Key', { enabled: true })).statusCode).toBe(400);
    expect((await t.app.inject({ url: '/api/flags' })).json().deposits).toBe(false);
  });
});

describe('feature flags across two instances on one database', () => {
  const REFRESH_MS = 300;
  let db: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    db = await createTestDatabase();
    const env = { FLAGS_REFRESH_MS: String(REFRESH_MS) };
    a = await createTestApp({ database: db, env });
    b = await createTestApp({ database: db, env });
    admin = await newAdmin(a.app);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await db.drop();
  });

  it('shows a change made through one instance on the other within the refresh interval', async () => {
    expect((await b.app.inject({ url: '/api/flags' })).json().deposits).toBe(false);
    const changed = await a.app.inject({
      method: 'PUT',
      url: '/api/admin/flags/deposits',
      headers: bearer(admin.token),
      payload: { enabled: true },
    });
    expect(changed.statusCode).toBe(200);
    expect((await a.app.inject({ url: '/api/flags' })).json().deposits).toBe(true);

    await sleep(REFRESH_MS + 50);
    expect((await b.app.inject({ url: '/api/flags' })).json().deposits).toBe(true);

    // The switch is live on b for the feature it guards, not only in the map.
    const user = await newUser(b.app);
    const deposit = await b.app.inject({
      method: 'POST',
      url: '/api/deposits',
      headers: bearer(user.token),
      payload: { amountCents: 50_000, methodId: 'upi' },
    });
    expect(deposit.statusCode).toBe(503);
    expect(deposit.json().code).toBe('PROVIDER_NOT_CONFIGURED');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestDatabase } from '../../support/app.js';
import { createMarket } from '../../support/exchange.js';
import { bearer, newAdmin, newUser, type TestUser, uniqueEmail } from '../../support/factories.js';

const TOKEN = 'operators-test-bootstrap-token-0123456789';

describe('the first operator', () => {
  let t: TestApp & { testDatabase: TestDatabase };
  const lines: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      env: { ADMIN_EMAIL: 'boss@operators.example', LOG_LEVEL: 'warn' },
      logStream: { write: (line) => lines.push(line) },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  const redeem = (user: TestUser | null, token: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/auth/admin-bootstrap',
      headers: user ? bearer(user.token) : {},
      payload: { token },
    });

  it('is never whoever registers ADMIN_EMAIL, in any letter case', async () => {
    const boss = await newUser(t.app, { email: 'BOSS@Operators.Example' });
    const me = await t.app.inject({ url: '/api/auth/me', headers: bearer(boss.token) });
    expect(me.json().role).toBe('user');
    expect((await t.app.inject({ url: '/api/admin/flags', headers: bearer(boss.token) })).statusCode).toBe(
      403,
    );
    expect(lines.join('')).toContain('ADMIN_EMAIL grants nothing');
  });

  it('is made once by the bootstrap token printed at start', async () => {
    const logged = lines.map((line) => JSON.parse(line)).find((line) => line.bootstrapToken);
    const token: string = logged.bootstrapToken;
    expect(token).toMatch(/^pmx_boot_/);
    const [first, second] = [await newUser(t.app), await newUser(t.app)];
    expect((await redeem(null, token)).statusCode).toBe(401);
    const wrong = await redeem(first, `${token}x`);
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().code).toBe('BOOTSTRAP_REFUSED');
    const made = await redeem(first, token);
    expect(made.statusCode, made.body).toBe(200);
    expect(made.json()).toMatchObject({ userId: first.id, role: 'admin' });
    expect((await t.app.inject({ url: '/api/admin/flags', headers: bearer(first.token) })).statusCode).toBe(
      200,
    );
    const again = await redeem(second, token);
    expect(again.statusCode).toBe(403);
    expect(again.json().code).toBe('BOOTSTRAP_REFUSED');
    const log = await t.app.inject({ url: '/api/admin/actions', headers: bearer(first.token) });
    expect(log.json().data[0]).toMatchObject({
      actorId: first.id,
      via: 'bootstrap',
      action: 'grant-admin',
      targetType: 'user',
      targetId: first.id,
      address: '127.0.0.1',
    });
  });

  it('takes the configured token, and none once an admin exists', async () => {
    const configured = await createTestApp({
      database: t.testDatabase,
      env: { ADMIN_BOOTSTRAP_TOKEN: TOKEN },
    });
    try {
      const user = await newUser(configured.app);
      const res = await configured.app.inject({
        method: 'POST',
        url: '/api/auth/admin-bootstrap',
        headers: bearer(user.token),
        payload: { token: TOKEN },
      });
      expect(res.statusCode).toBe(403);
    } finally {
      await configured.close();
    }
  });
});

describe('roles and the admin audit log', () => {
  let t: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await newAdmin(t.app);
  });
  afterAll(async () => {
    await t.close();
  });

  const call = (user: TestUser, method: 'GET' | 'PUT' | 'DELETE', url: string) =>
    t.app.inject({ method, url, headers: { ...bearer(user.token), 'x-forwarded-for': '203.0.113.9' } });

  it('grants and revokes the admin role by email, username or id, never leaving no admin', async () => {
    const email = uniqueEmail('deputy');
    const deputy = await newUser(t.app, { email });
    expect((await call(deputy, 'GET', '/api/admin/operators')).statusCode).toBe(403);
    expect((await call(deputy, 'PUT', `/api/admin/operators/${admin.id}`)).statusCode).toBe(403);
    const granted = await call(
      admin,
      'PUT',
      `/api/admin/operators/${encodeURIComponent(email.toUpperCase())}`,
    );
    expect(granted.statusCode, granted.body).toBe(200);
    expect(granted.json()).toMatchObject({ userId: deputy.id, role: 'admin' });
    expect((await call(deputy, 'GET', '/api/admin/operators')).statusCode).toBe(200);
    const listed = (await call(admin, 'GET', '/api/admin/operators')).json().data;
    expect(listed.map((o: { userId: string }) => o.userId)).toEqual([admin.id, deputy.id]);
    const revoked = await call(admin, 'DELETE', `/api/admin/operators/${deputy.username}`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect((await call(deputy, 'GET', '/api/admin/operators')).statusCode).toBe(403);
    const last = await call(admin, 'DELETE', `/api/admin/operators/${admin.id}`);
    expect(last.statusCode).toBe(409);
    expect(last.json().code).toBe('LAST_ADMIN');
    expect((await call(admin, 'PUT', '/api/admin/operators/nobody-at-all')).statusCode).toBe(404);
  });

  it('records every admin change with who, what, to what, when and from where, newest first, in pages', async () => {
    const market = await createMarket(t.app, admin.token);
    const flag = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/flags/copyTrading',
      headers: bearer(admin.token),
      payload: { enabled: false },
    });
    expect(flag.statusCode, flag.body).toBe(200);
    const refused = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/flags/noSuchFlag',
      headers: bearer(admin.token),
      payload: { enabled: false },
    });
    expect(refused.statusCode).toBe(404);
    const page = await call(admin, 'GET', '/api/admin/actions?limit=2');
    expect(page.statusCode, page.body).toBe(200);
    const [flagged, created] = page.json().data;
    expect(flagged).toMatchObject({
      actorId: admin.id,
      actorUsername: admin.username,
      via: 'api',
      action: 'PUT /api/admin/flags/:key',
      summary: 'Switch a feature flag on or off',
      targetType: 'flag',
      targetId: 'copyTrading',
      details: { enabled: false },
    });
    expect(created).toMatchObject({
      action: 'POST /api/admin/events',
      targetType: 'event',
      targetId: market.id,
    });
    expect(Date.now() - Date.parse(created.at)).toBeLessThan(60_000);
    const next = await call(admin, 'GET', `/api/admin/actions?limit=50&cursor=${page.json().nextCursor}`);
    const actions = next.json().data.map((a: { action: string }) => a.action);
    expect(actions).toEqual(['revoke-admin', 'grant-admin', 'grant-admin']);
    const byUser = await call(admin, 'GET', `/api/admin/actions?targetType=event&targetId=${market.id}`);
    expect(byUser.json().data).toHaveLength(1);
  });
});

import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashSecret } from '../../../src/platform/auth.js';
import type { Database } from '../../../src/platform/db/database.js';
import {
  closeTwoInstances,
  createTestApp,
  createTwoInstances,
  TEST_DATABASE_URL,
  type TestApp,
  type TestDatabase,
} from '../../support/app.js';
import { bearer, newAdmin, newUser, type TestUser, uniqueEmail } from '../../support/factories.js';

/** How long another instance may take to hear of a change. */
const PROPAGATION_MS = 2000;

let db: TestDatabase;
let a: TestApp;
let b: TestApp;
let admin: TestUser;

beforeAll(async () => {
  ({ db, a, b } = await createTwoInstances());
  admin = await newAdmin(a.app);
});
afterAll(async () => {
  await closeTwoInstances({ db, a, b });
});
afterEach(() => {
  vi.useRealTimers();
});

async function status(app: FastifyInstance, token: string, url = '/api/auth/me'): Promise<number> {
  return (await app.inject({ url, headers: bearer(token) })).statusCode;
}

async function createKey(app: FastifyInstance, user: TestUser): Promise<{ id: string; key: string }> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/me/api-keys',
    headers: bearer(user.token),
    payload: { name: 'bot' },
  });
  expect(res.statusCode).toBe(201);
  return res.json();
}

async function revokeKey(app: FastifyInstance, user: TestUser, id: string): Promise<void> {
  const res = await app.inject({
    method: 'DELETE',
    url: `/api/me/api-keys/${id}`,
    headers: bearer(user.token),
  });
  expect(res.statusCode).toBe(204);
}

async function logout(app: FastifyInstance, token: string): Promise<void> {
  const res = await app.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(token) });
  expect(res.statusCode).toBe(204);
}

/** Suspends a user the way moderators do: a report resolved with `suspend`. */
async function suspend(app: FastifyInstance, user: TestUser): Promise<void> {
  const reporter = await newUser(app);
  const filed = await app.inject({
    method: 'POST',
    url: '/api/reports',
    headers: bearer(reporter.token),
    payload: { targetType: 'USER', targetId: user.id, reason: 'abuse' },
  });
  expect(filed.statusCode).toBe(201);
  const resolved = await app.inject({
    method: 'POST',
    url: `/api/admin/reports/${filed.json().id}/resolve`,
    headers: bearer(admin.token),
    payload: { action: 'suspend' },
  });
  expect(resolved.statusCode).toBe(200);
}

/** Milliseconds until `check` holds; fails past `PROPAGATION_MS`. */
async function within(check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > PROPAGATION_MS)
      throw new Error(`condition not met within ${PROPAGATION_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - started;
}

/** Revokes a key straight in the database, behind the service's back: no instance is told. */
async function revokeUnannounced(key: string): Promise<void> {
  await db.database.db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('key_hash', '=', hashSecret(key))
    .execute();
}

async function lastUsedAt(database: Database, keyId: string): Promise<Date | null> {
  const row = await database.db
    .selectFrom('api_keys')
    .select('last_used_at')
    .where('id', '=', Number(keyId))
    .executeTakeFirstOrThrow();
  return row.last_used_at;
}

describe('credentials on one instance', () => {
  it('answers a credential it has seen from memory, without reading the database', async () => {
    const user = await newUser(a.app);
    const { key } = await createKey(a.app, user);
    expect(await status(a.app, key)).toBe(200);
    // The instance does not look again, so it does not notice.
    await revokeUnannounced(key);
    expect(await status(a.app, key)).toBe(200);

    const uncached = await createTestApp({ database: db, env: { AUTH_CACHE_TTL_MS: '0' } });
    try {
      expect(await status(uncached.app, key)).toBe(401);
    } finally {
      await uncached.close();
    }
  });

  it('refuses a revoked API key on the very next request', async () => {
    const user = await newUser(a.app);
    const { id, key } = await createKey(a.app, user);
    const other = await createKey(a.app, user);
    expect(await status(a.app, key)).toBe(200);
    expect(await status(a.app, other.key)).toBe(200);
    await revokeKey(a.app, user, id);
    expect(await status(a.app, key)).toBe(401);
    expect(await status(a.app, other.key)).toBe(200);
  });

  it('refuses a logged-out session on the very next request and keeps the user’s other sessions', async () => {
    const user = await newUser(a.app);
    const login = await a.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: user.password },
    });
    const second: string = login.json().token;
    expect(await status(a.app, user.token)).toBe(200);
    expect(await status(a.app, second)).toBe(200);
    await logout(a.app, user.token);
    expect(await status(a.app, user.token)).toBe(401);
    expect(await status(a.app, second)).toBe(200);
  });

  it('answers a suspended user’s cached session and keys 403 at once', async () => {
    const user = await newUser(a.app);
    const { key } = await createKey(a.app, user);
    expect(await status(a.app, user.token)).toBe(200);
    expect(await status(a.app, key)).toBe(200);
    await suspend(a.app, user);
    for (const token of [user.token, key]) {
      const res = await a.app.inject({ url: '/api/auth/me', headers: bearer(token) });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('ACCOUNT_SUSPENDED');
    }
  });

  it('does not trust a cached session past its expiry', async () => {
    const user = await newUser(a.app);
    expect(await status(a.app, user.token)).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + a.config.sessionTtlHours * 3_600_000 + 60_000);
    expect(await status(a.app, user.token)).toBe(401);
  });

  it('records an API key’s use at once, then at most once a minute', async () => {
    const user = await newUser(a.app);
    const { id, key } = await createKey(a.app, user);
    expect(await lastUsedAt(db.database, id)).toBeNull();
    expect(await status(a.app, key)).toBe(200);
    const first = await lastUsedAt(db.database, id);
    expect(first).not.toBeNull();
    expect(await status(a.app, key)).toBe(200);
    expect(await status(b.app, key)).toBe(200);
    expect(await lastUsedAt(db.database, id)).toEqual(first);

    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61_000);
    expect(await status(a.app, key)).toBe(200);
    const later = await lastUsedAt(db.database, id);
    expect(later!.getTime()).toBeGreaterThanOrEqual(first!.getTime() + 60_000);
    const list = await a.app.inject({ url: '/api/me/api-keys', headers: bearer(key) });
    expect(list.json().data[0].lastUsedAt).toBe(later!.toISOString());
  });
});

describe('credentials across two instances on one database', () => {
  it('accepts on one instance a key created on the other at once', async () => {
    const user = await newUser(a.app);
    expect(await status(b.app, 'pmx_live_notyetcreatednotyetcreatednotyetcreatedxxx')).toBe(401);
    const { key } = await createKey(a.app, user);
    expect(await status(b.app, key)).toBe(200);
  });

  it('refuses a key revoked on the other instance within moments', async () => {
    const user = await newUser(a.app);
    const { id, key } = await createKey(a.app, user);
    expect(await status(b.app, key)).toBe(200);
    await revokeKey(a.app, user, id);
    expect(await status(a.app, key)).toBe(401);
    expect(await within(async () => (await status(b.app, key)) === 401)).toBeLessThan(PROPAGATION_MS);
  });

  it('refuses a session logged out on the other instance within moments', async () => {
    const user = await newUser(a.app);
    expect(await status(b.app, user.token)).toBe(200);
    await logout(a.app, user.token);
    expect(await within(async () => (await status(b.app, user.token)) === 401)).toBeLessThan(PROPAGATION_MS);
  });

  it('answers 403 on the other instance within moments of a suspension', async () => {
    const user = await newUser(a.app);
    const { key } = await createKey(a.app, user);
    expect(await status(b.app, user.token)).toBe(200);
    expect(await status(b.app, key)).toBe(200);
    await suspend(a.app, user);
    for (const token of [user.token, key]) {
      expect(await within(async () => (await status(b.app, token)) === 403)).toBeLessThan(PROPAGATION_MS);
    }
  });

  it('grants and revokes a role on every instance within a second', async () => {
    const user = await newUser(a.app, { email: uniqueEmail('promoted') });
    expect(await status(a.app, user.token, '/api/admin/reports')).toBe(403);
    expect(await status(b.app, user.token, '/api/admin/reports')).toBe(403);
    const change = (method: 'PUT' | 'DELETE') =>
      a.app.inject({ method, url: `/api/admin/operators/${user.id}`, headers: bearer(admin.token) });
    const granted = await change('PUT');
    expect(granted.statusCode, granted.body).toBe(200);
    expect(
      await within(async () => (await status(b.app, user.token, '/api/admin/reports')) === 200),
    ).toBeLessThan(1000);
    const revoked = await change('DELETE');
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(
      await within(async () => (await status(b.app, user.token, '/api/admin/reports')) === 403),
    ).toBeLessThan(1000);
    expect(await status(a.app, user.token, '/api/admin/reports')).toBe(403);
  });
});

describe.runIf(TEST_DATABASE_URL !== null)('credentials when the listening connection is lost', () => {
  async function listeners(): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND query = 'LISTEN pmx_auth'`.execute(db.database.db);
    return rows[0]?.n ?? 0;
  }

  it('looks every credential up until it listens again, then caches again', async () => {
    const user = await newUser(a.app);
    const before = await createKey(a.app, user);
    expect(await status(a.app, before.key)).toBe(200);
    expect(await listeners()).toBe(2);

    await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND query = 'LISTEN pmx_auth'`.execute(db.database.db);
    await revokeUnannounced(before.key);
    expect(await within(async () => (await status(a.app, before.key)) === 401)).toBeLessThan(PROPAGATION_MS);

    const started = Date.now();
    while ((await listeners()) < 2 && Date.now() - started < 5000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await listeners()).toBe(2);
    // Caching is back: the unannounced revocation of a key seen since goes unnoticed again.
    const resumed = await within(async () => {
      const probe = await createKey(a.app, user);
      expect(await status(a.app, probe.key)).toBe(200);
      await revokeUnannounced(probe.key);
      return (await status(a.app, probe.key)) === 200;
    });
    expect(resumed).toBeLessThan(PROPAGATION_MS);
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECURITY_LOG_PRUNE_JOB } from '../../../src/modules/accounts/security-log.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { newUser, type TestUser } from '../../support/factories.js';

/**
 * The security log keeps its entries SECURITY_LOG_RETENTION_DAYS (365 by default): the periodic prune job deletes
 * older ones, and with 0 keeps every entry.
 */

let kept: TestApp;
let forever: TestApp;

beforeAll(async () => {
  kept = await createTestApp({ env: { SECURITY_LOG_RETENTION_DAYS: '30' } });
  forever = await createTestApp({ env: { SECURITY_LOG_RETENTION_DAYS: '0' } });
});
afterAll(async () => {
  await kept?.close();
  await forever?.close();
});

async function withHistory(t: TestApp): Promise<TestUser> {
  const user = await newUser(t.app);
  for (let i = 0; i < 3; i++) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: user.password },
    });
    expect(res.statusCode).toBe(200);
  }
  // Four entries (the registration and three sign-ins): two of them made old.
  await sql`UPDATE security_events SET created_at = now() - interval '31 days'
            WHERE id IN (SELECT id FROM security_events WHERE user_id = ${Number(user.id)} ORDER BY id LIMIT 2)`.execute(
    t.database.db,
  );
  return user;
}

async function entries(t: TestApp, user: TestUser): Promise<string[]> {
  const { rows } = await sql<{ kind: string }>`
    SELECT kind FROM security_events WHERE user_id = ${Number(user.id)} ORDER BY id`.execute(t.database.db);
  return rows.map((row) => row.kind);
}

describe('security log retention', () => {
  it('deletes entries older than SECURITY_LOG_RETENTION_DAYS in the periodic prune job', async () => {
    const user = await withHistory(kept);
    expect(await entries(kept, user)).toEqual(['account_created', 'login', 'login', 'login']);
    expect(await kept.app.jobs.runNow(SECURITY_LOG_PRUNE_JOB)).toBe(2);
    expect(await entries(kept, user)).toEqual(['login', 'login']);
    expect(await kept.app.jobs.runNow(SECURITY_LOG_PRUNE_JOB)).toBe(0);
  });

  it('keeps every entry with 0', async () => {
    const user = await withHistory(forever);
    await sql`UPDATE security_events SET created_at = now() - interval '3000 days'`.execute(
      forever.database.db,
    );
    expect(await forever.app.jobs.runNow(SECURITY_LOG_PRUNE_JOB)).toBe(0);
    expect(await entries(forever, user)).toHaveLength(4);
  });
});

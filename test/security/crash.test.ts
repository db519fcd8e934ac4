import { describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '../support/app.js';
import { runScript } from '../support/scripts.js';

/**
 * A short run of `npm run crash-test` (two SIGKILLs under load, each landing inside a batch transaction: its
 * orders inserted, not yet committed) in the PostgreSQL pass of CI. The embedded
 * database does not fsync, so crash safety is only claimed, and tested, on PostgreSQL.
 */
describe.skipIf(!TEST_DATABASE_URL)('crash safety on PostgreSQL (short run)', () => {
  it('keeps every acknowledged order and trade through two SIGKILLs in the middle of a batch, with a clean audit', async () => {
    const { code, output } = await runScript('scripts/crash-test.ts', {
      CRASH_DATABASE_URL: TEST_DATABASE_URL ?? '',
      CRASH_KILLS: '2',
      CRASH_USERS: '16',
      CRASH_CONCURRENCY: '12',
    });
    expect(code, output).toBe(0);
    expect(output).toContain('crash test passed');
    expect(output).toMatch(/kills inside a batch transaction +2 of 2/);
    // Orders in flight at a kill were committed whole or are absent (checked by the script, which fails if not).
    expect(output).toMatch(/orders in flight at a kill +\d+: \d+ committed whole, \d+ absent/);
  }, 120_000);
});

import { describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/app.js';
import { runScript } from '../support/scripts.js';

/**
 * The short run of `npm run fault-test` in the PostgreSQL pass of CI: a real server process behind TCP proxies the
 * test owns, under orders, cancels, reads and stream subscribers, through every connection to PostgreSQL cut, 5 s of
 * refused connections, 5 s of stalled ones, pg_terminate_backend, 5 s without Redis and an option row locked past
 * lock_timeout. The script fails on any 500 or reset, a 503 without Retry-After, a /healthz other than 200, a
 * request past the bounds, a recovery slower than 2 s, jobs that do not run again, a subscriber without a fresh
 * snapshot after its listening connection dropped or whose book differs from a fresh snapshot, an order book read
 * behind the stream, a process that exited, an acknowledged order missing, an order refused for a busy option but
 * written, or an unclean audit.
 */
describe.skipIf(!TEST_DATABASE_URL)('dependency faults on PostgreSQL (short run)', () => {
  it('survives every fault with only 2xx, 4xx and 503 answers, recovers within 2 s and loses nothing', async () => {
    const { code, output } = await runScript('scripts/fault-test.ts', {
      FAULT_DATABASE_URL: TEST_DATABASE_URL ?? '',
      FAULT_REDIS_URL: TEST_REDIS_URL,
      FAULT_SHORT: 'true',
      FAULT_RESTART: 'false',
    });
    expect(code, output).toBe(0);
    expect(output).toContain('fault test passed');
    expect(output).toMatch(/\| every PostgreSQL connection cut \| \d+ \| \d+ \| \d+ \| \d+ \| 0 \|/);
    expect(output).toMatch(/\| an option row locked .* \| 0 \|/);
    expect(output).toContain('npm run audit: exit 0');
  }, 150_000);
});

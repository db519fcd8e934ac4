import { describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/app.js';
import { runScript } from '../support/scripts.js';

/**
 * The short run of `npm run fault-test` in the PostgreSQL pass of CI: two real server processes behind TCP proxies
 * the test owns, with a redis-server of the test's own when one is installed, under orders, cancels, reads and
 * stream subscribers, through every connection to PostgreSQL cut, 3 s of refused connections, 3 s of stalled ones,
 * pg_terminate_backend, the database read-only and back, a full disk's stand-in (every write failing with 53100),
 * Redis unreachable and Redis stalled (SIGSTOP), an option row locked past lock_timeout, 1,000 stream connections
 * from one address, a rolling SIGTERM of both instances and an instance started before PostgreSQL is reachable.
 * The script fails on any 500 or reset, a 503 without Retry-After or the documented body, a /healthz other than
 * 200, a request past the bounds, a recovery slower than 2 s, jobs that do not run again, a subscriber without a
 * fresh snapshot after its listening connection dropped or whose book differs from a fresh snapshot, an order book
 * read behind the stream, a process that exited, an acknowledged order missing, an order refused but written, an
 * unclean audit, and on each fault's own measure: the read-only and full-disk codes and /readyz reasons, the p99 of
 * the reads during the Redis stall within REDIS_TIMEOUT_MS of the p99 before it, the stream bound held, each
 * instance stopping within SHUTDOWN_TIMEOUT_MS with exit 0, and the late instance reaching PostgreSQL within 2 s of
 * its arrival.
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
    expect(output).toMatch(/\| the database read-only .* \| 0 \| .*DATABASE_READ_ONLY \d+/);
    expect(output).toMatch(/\| the disk full .* \| 0 \| .*DATABASE_DISK_FULL \d+/);
    expect(output).toMatch(
      /\| 1,000 stream connections .* \| 0 \| .*100 accepted, 900 × 429 TOO_MANY_CONNECTIONS/,
    );
    expect(output).toMatch(/\| rolling SIGTERM under load .* \| 0 \| .*exit 0/);
    expect(output).toMatch(/\| an instance started while PostgreSQL is unreachable.* \| 0 \|/);
    expect(output).toMatch(/\| an option row locked .* \| 0 \|/);
    expect(output).toContain('npm run audit: exit 0');
  }, 400_000);
});

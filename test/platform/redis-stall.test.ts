import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, percentile } from '../../scripts/lib/harness.js';
import { buildApp } from '../../src/app.js';
import { connectRedis } from '../../src/platform/runtime.js';
import { createTestDatabase, type TestDatabase, testConfig } from '../support/app.js';

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;
const TIMEOUT_MS = 100;
const PREFIX = 'stall-test:';

/**
 * A Redis of the test's own, frozen with SIGSTOP: the connection stays open and nothing answers, which used to add
 * the command timeout to every request. Now only the requests in flight when it stalls wait, at most
 * REDIS_TIMEOUT_MS; the rest count in the instance's memory without asking, and counting moves back to Redis once
 * it answers again.
 */
describe.skipIf(!hasRedisServer)('a stalled Redis', () => {
  let server: ChildProcess;
  let db: TestDatabase;
  let app: FastifyInstance;
  let redis: ReturnType<typeof connectRedis>;
  let probe: Redis;
  const lines: { msg?: string }[] = [];

  beforeAll(async () => {
    const port = await freePort();
    server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    const url = `redis://127.0.0.1:${port}`;
    probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    probe.on('error', () => {});
    for (let i = 0; i < 50; i++) {
      if (
        await probe.ping().then(
          () => true,
          () => false,
        )
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    db = await createTestDatabase();
    redis = connectRedis(url, TIMEOUT_MS);
    app = await buildApp({
      config: testConfig({
        REDIS_KEY_PREFIX: PREFIX,
        REDIS_TIMEOUT_MS: String(TIMEOUT_MS),
        LOG_LEVEL: 'info',
      }),
      database: db.database,
      redis,
      logStream: { write: (line) => lines.push(JSON.parse(line) as { msg?: string }) },
    });
    await app.ready();
    // The requests below are injected and the database is in this process: the loop may never wait for I/O while
    // they run, so the client's connection is made ready before they start, as a real server's sockets would let it.
    for (let i = 0; i < 100 && redis?.status !== 'ready'; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
  });
  afterAll(async () => {
    server.kill('SIGCONT');
    await app?.close();
    redis?.disconnect();
    probe.disconnect();
    server.kill('SIGKILL');
    await db?.drop();
  });

  const timed = async (count: number): Promise<number[]> => {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const res = await app.inject({ url: '/api/events' });
      times.push(performance.now() - started);
      expect(res.statusCode).toBe(200);
    }
    return times.sort((x, y) => x - y);
  };
  const keysInRedis = async () => (await probe.keys(`${PREFIX}*`)).length;
  const fallbacks = async () =>
    Number(
      /rate_limit_local_fallback_total (\d+)/.exec((await app.inject({ url: '/metrics' })).body)?.[1] ?? 0,
    );

  it('adds at most REDIS_TIMEOUT_MS to the requests in flight, nothing to the rest, and counts in Redis again after', async () => {
    const before = await timed(100);
    expect(await keysInRedis()).toBeGreaterThan(0);
    expect(await fallbacks()).toBe(0);

    server.kill('SIGSTOP');
    // Over three probes, so the circuit also gives the stalled connection up and opens a new one meanwhile.
    const stalled: number[] = [];
    const until = Date.now() + 4_000;
    while (Date.now() < until) stalled.push(...(await timed(20)));
    stalled.sort((x, y) => x - y);
    const p99Before = percentile(before, 99);
    const p99Stalled = percentile(stalled, 99);
    process.stdout.write(
      `redis stall: ${stalled.length} requests, p50 ${percentile(stalled, 50).toFixed(1)} ms, p99 ` +
        `${p99Stalled.toFixed(1)} ms, slowest ${stalled[stalled.length - 1]?.toFixed(1)} ms ` +
        `(before: p50 ${percentile(before, 50).toFixed(1)} ms, p99 ${p99Before.toFixed(1)} ms)\n`,
    );
    expect(p99Stalled).toBeLessThan(p99Before + TIMEOUT_MS);
    expect(stalled[stalled.length - 1]).toBeLessThan(p99Before + TIMEOUT_MS + 150);
    expect(await fallbacks()).toBeGreaterThan(0);

    server.kill('SIGCONT');
    await probe.del(...(await probe.keys(`${PREFIX}*`)));
    const deadline = Date.now() + 5_000;
    while ((await keysInRedis()) === 0 && Date.now() < deadline) await timed(1);
    expect(await keysInRedis()).toBeGreaterThan(0);
    expect(lines.map((line) => line.msg)).toEqual(
      expect.arrayContaining([
        'Redis did not answer; rate limits count in this instance until it answers again',
        'Redis answers again; rate limits count in Redis again',
      ]),
    );
  }, 30_000);
});

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/harness.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function startServer(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const dir = mkdtempSync(join(tmpdir(), 'pmx-'));
  dirs.push(dir);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'info', DATABASE_URL: '', REDIS_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return { child, output: () => output };
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

describe('the server process', () => {
  it('refuses to start with a wrong value and names the variable', async () => {
    const { child, output } = startServer({ PORT: 'not-a-port' });
    expect(await exitOf(child)).toBe(78);
    expect(output()).toContain('PORT');
  });

  it('waits for PostgreSQL with back-off, logging each try, then exits 1 saying why', async () => {
    // A port nothing listens on: every connection is refused.
    const port = await freePort();
    const started = Date.now();
    const { child, output } = startServer({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/exchange`,
      DATABASE_STARTUP_TIMEOUT_MS: '1500',
      LOG_LEVEL: 'warn',
    });
    expect(await exitOf(child)).toBe(1);
    const waitedMs = Date.now() - started;
    const tries = output()
      .split('\n')
      .filter((line) => line.includes('"msg":"waiting for the database"'));
    // Back-off 250, 500, 1000 ms: three tries logged within 1.5 s, then the verdict.
    expect(tries.length).toBeGreaterThanOrEqual(2);
    expect(tries[0]).toContain(`127.0.0.1:${port}/exchange`);
    expect(tries[0]).toContain('ECONNREFUSED');
    expect(output()).toMatch(/the database at 127\.0\.0\.1:\d+\/exchange could not be reached in \d+ s/);
    expect(output()).toContain('DATABASE_STARTUP_TIMEOUT_MS');
    expect(waitedMs).toBeLessThan(15_000);
  }, 30_000);

  it('starts on the embedded database, answers, and shuts down cleanly on SIGTERM', async () => {
    const port = String(20000 + Math.floor(Math.random() * 20000));
    const { child, output } = startServer({ PORT: port, HOST: '127.0.0.1' });
    const exited = exitOf(child);
    let status = 0;
    // Up to a minute: on a busy machine, starting under tsx, creating the embedded database and loading the demo
    // catalogue take a while.
    for (let i = 0; i < 300 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
    }
    expect(status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output()).toContain('server closed');
  }, 90_000);

  it('serves the metrics on METRICS_PORT behind METRICS_TOKEN, not on the service port, and closes both', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const token = 'metrics-token-0123456789';
    const { child, output } = startServer({
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      METRICS_HOST: '127.0.0.1',
      METRICS_TOKEN: token,
      SEED_DEMO: 'false',
    });
    const exited = exitOf(child);
    let status = 0;
    for (let i = 0; i < 300 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
    }
    expect(status, output()).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    expect((await fetch(metricsUrl)).status).toBe(401);
    const scraped = await fetch(metricsUrl, { headers: { authorization: `Bearer ${token}` } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('http_request_duration_seconds');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(
      await fetch(metricsUrl).then(
        () => 'answered',
        () => 'closed',
      ),
    ).toBe('closed');
  }, 90_000);
});

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

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
});

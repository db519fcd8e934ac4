import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectInvariants } from '../support/app.js';
import { type LiveService, startLiveService } from './live-service.js';

/**
 * The Python client's own tests (`python3 -m unittest`, standard library only) against the service listening on a
 * real port: every answer they receive is checked against the contract, and the ledger's invariants hold after.
 */
const PYTHON_CLIENT = fileURLToPath(new URL('../../clients/python/', import.meta.url));

let live: LiveService;

beforeAll(async () => {
  live = await startLiveService();
});
afterAll(async () => {
  if (!live) return;
  await expectInvariants(live.t.database);
  await live.t.close();
});

function unittest(): Promise<{ code: number | null; output: string }> {
  const child = spawn('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-v'], {
    cwd: PYTHON_CLIENT,
    env: {
      ...process.env,
      PMX_BASE_URL: live.baseUrl,
      PMX_ADMIN_TOKEN: live.admin.token,
      PYTHONDONTWRITEBYTECODE: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

describe('the Python client', () => {
  it('passes its unittest suite against a live service', async () => {
    const { code, output } = await unittest();
    process.stdout.write(output);
    expect(output).toMatch(/Ran \d+ tests/);
    expect(code, output).toBe(0);
  }, 300_000);
});

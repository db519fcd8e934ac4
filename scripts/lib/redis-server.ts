import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './harness.js';

/** A redis-server of a script's own, on a free port: it can be frozen (SIGSTOP) without touching a shared one. */
export interface OwnRedis {
  url: string;
  /** Stops it answering while its connections stay open: the process is stopped, the kernel still accepts. */
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

/** Starts `redis-server` (from PATH) without persistence; null when there is none. */
export async function startOwnRedis(): Promise<OwnRedis | null> {
  if (spawnSync('redis-server', ['--version']).status !== 0) return null;
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  probe.on('error', () => {});
  try {
    for (let i = 0; i < 100; i++) {
      if (
        await probe.ping().then(
          () => true,
          () => false,
        )
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    probe.disconnect();
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    freeze: () => child.kill('SIGSTOP'),
    thaw: () => child.kill('SIGCONT'),
    async stop() {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
      await exited;
    },
  };
}

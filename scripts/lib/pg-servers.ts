import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, chown, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * PostgreSQL servers of a script's or a test's own, on ports of their own in a folder of their own, never the
 * machine's clusters: a primary from initdb, standbys of it from pg_basebackup, promoted or crashed at will.
 */

export const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
export const hasPostgresBinaries = existsSync(join(PG_BIN, 'initdb'));

/** PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user. */
export const serverUser: { uid: number; gid: number } | null =
  process.getuid?.() === 0
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
        gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
      }
    : null;

/** Runs `command` as the servers' user; resolves with its output, rejects with it on a non-zero exit. */
export function runAsServerUser(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      ...(serverUser ?? {}),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${command} ${args.join(' ')}: exit ${code}\n${output}`)),
    );
  });
}

/** A new folder in the temporary directory that the servers' user owns. */
export async function serverFolder(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (serverUser) await chown(dir, serverUser.uid, serverUser.gid);
  return dir;
}

export async function removeFolder(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export interface LocalServer {
  port: number;
  dataDir: string;
  /** A connection string to `database` on this server, as the superuser `postgres`. */
  url(database?: string): string;
  /** Runs one statement on a connection of its own. */
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  /** Ends recovery: the standby takes writes. */
  promote(): Promise<void>;
  /** The machine lost: the postmaster and every backend killed with SIGKILL, nothing flushed or said goodbye. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

const pgctl = (args: string[]) => runAsServerUser(join(PG_BIN, 'pg_ctl'), args);

function serverAt(dataDir: string, port: number): LocalServer {
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    dataDir,
    url,
    async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
      const client = new pg.Client({ connectionString: url() });
      client.on('error', () => {});
      await client.connect();
      try {
        return (await client.query<R>(text, values)).rows;
      } finally {
        await client.end().catch(() => {});
      }
    },
    promote: () => pgctl(['promote', '-w', '-D', dataDir]).then(() => {}),
    async crash() {
      const postmaster = Number((await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      let backends: number[] = [];
      try {
        backends = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
          .split('\n')
          .filter(Boolean)
          .map(Number);
      } catch {
        // pgrep exits 1 when it finds none.
      }
      for (const pid of [postmaster, ...backends]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    },
    async stop() {
      if (existsSync(join(dataDir, 'postmaster.pid')))
        await pgctl(['stop', '-w', '-m', 'immediate', '-D', dataDir]).catch(() => {});
    },
  };
}

/** Settings every server of ours runs with: reachable only on 127.0.0.1, its socket in its own folder. */
async function configure(dataDir: string, port: number, settings: Record<string, string>): Promise<void> {
  const lines = Object.entries({
    port: String(port),
    listen_addresses: "'127.0.0.1'",
    unix_socket_directories: `'${dataDir}'`,
    ...settings,
  }).map(([name, value]) => `${name} = ${value}`);
  await appendFile(join(dataDir, 'postgresql.conf'), `\n${lines.join('\n')}\n`);
}

/** Starts the server; when it does not come up, the error carries the end of its log (why it did not). */
async function start(dataDir: string, port: number): Promise<LocalServer> {
  const log = join(dataDir, 'server.log');
  try {
    await pgctl(['start', '-w', '-t', '60', '-D', dataDir, '-l', log]);
  } catch (error) {
    const tail = await readFile(log, 'utf8').then(
      (text) => text.split('\n').slice(-15).join('\n'),
      () => '',
    );
    throw new Error(`${(error as Error).message}\n${log}:\n${tail}`);
  }
  return serverAt(dataDir, port);
}

/** A new primary in `dir`/`name`, with `settings` (values as postgresql.conf writes them) on top of ours. */
export async function startPrimary(
  dir: string,
  name: string,
  port: number,
  settings: Record<string, string> = {},
): Promise<LocalServer> {
  const dataDir = join(dir, name);
  await runAsServerUser(join(PG_BIN, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-N']);
  await configure(dataDir, port, { fsync: 'off', wal_level: 'replica', ...settings });
  return start(dataDir, port);
}

/** A streaming standby of `primary` in `dir`/`name` (pg_basebackup -R), started. */
export async function startStandby(
  primary: LocalServer,
  dir: string,
  name: string,
  port: number,
  settings: Record<string, string> = {},
): Promise<LocalServer> {
  const dataDir = join(dir, name);
  if (serverUser)
    await mkdir(dataDir, { mode: 0o700 }).then(() => chown(dataDir, serverUser.uid, serverUser.gid));
  const source = ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres'];
  await runAsServerUser(join(PG_BIN, 'pg_basebackup'), [
    ...source,
    '-D',
    dataDir,
    '-R',
    '-X',
    'stream',
    '-c',
    'fast',
  ]);
  // The primary's socket lives in its data folder, so the copy holds its socket lock file: a stale lock that stops
  // this server from starting on that port whenever the process it names is alive (as the primary itself may be).
  for (const file of await readdir(dataDir))
    if (file.startsWith('.s.PGSQL.')) await rm(join(dataDir, file), { force: true });
  // The copy carries the primary's settings (its port and socket folder among them): ours come after and win. A
  // standby promoted waits for no standby of its own until it is told to.
  await configure(dataDir, port, { synchronous_standby_names: "''", ...settings });
  return start(dataDir, port);
}

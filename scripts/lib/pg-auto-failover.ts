import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { PG_BIN, serverUser } from './pg-servers.js';

/**
 * A pg_auto_failover formation of a script's own: a monitor and two PostgreSQL nodes (`pg_autoctl`), each on a
 * port of its own in a folder of its own, synchronously replicated, the monitor's checks quickened so that a lost
 * primary is replaced in seconds.
 */

export const DEBIAN_PACKAGE = 'postgresql-15-auto-failover';

/** pg_autoctl, installed from Debian's packages when it is missing (as root, or through sudo). */
export function ensurePgAutoctl(log: (line: string) => void): void {
  if (commandExists('pg_autoctl')) return;
  const asRoot = process.getuid?.() === 0;
  if (!asRoot && !commandExists('sudo'))
    throw new Error(`pg_autoctl is missing: install ${DEBIAN_PACKAGE} (apt-get install ${DEBIAN_PACKAGE})`);
  const apt = (args: string[]) =>
    execFileSync(asRoot ? 'apt-get' : 'sudo', asRoot ? args : ['apt-get', ...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  log(`installing ${DEBIAN_PACKAGE} with apt-get`);
  try {
    apt(['install', '-y', DEBIAN_PACKAGE]);
  } catch {
    apt(['update']);
    apt(['install', '-y', DEBIAN_PACKAGE]);
  }
}

function commandExists(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The monitor's checks, quickened for a test (the defaults, in brackets, suit a network): a health check every
 * second [5 s] that gives up after 1 s [5 s] and one retry [2], a node unhealthy after 2 s without a report [20 s],
 * and a primary that does not answer given 2 s to demote itself [30 s] before its standby takes writes.
 */
const MONITOR_SETTINGS: Record<string, number> = {
  'pgautofailover.health_check_period': 1_000,
  'pgautofailover.health_check_timeout': 1_000,
  'pgautofailover.health_check_max_retries': 1,
  'pgautofailover.health_check_retry_delay': 500,
  'pgautofailover.node_considered_unhealthy_timeout': 2_000,
  'pgautofailover.primary_demote_timeout': 2_000,
};

export interface FormationNode {
  name: string;
  port: number;
  /** The node's `pg_autoctl run` (its PostgreSQL runs in the same process group). */
  keeper: ChildProcess;
  url(database?: string): string;
}

export interface NodeState {
  name: string;
  port: number;
  reported: string;
  goal: string;
}

export class Formation {
  readonly nodes: FormationNode[] = [];
  private monitor: ChildProcess | null = null;

  constructor(
    private readonly dir: string,
    private readonly monitorPort: number,
    readonly database: string,
  ) {}

  /** libpq's multi-host URL of the formation, as `pg_autoctl show uri` gives it. */
  get url(): string {
    const hosts = this.nodes.map((node) => `127.0.0.1:${node.port}`).join(',');
    return `postgres://postgres@${hosts}/${this.database}?target_session_attrs=read-write&sslmode=disable`;
  }

  private get monitorUrl(): string {
    return `postgres://autoctl_node@127.0.0.1:${this.monitorPort}/pg_auto_failover?sslmode=disable`;
  }

  async startMonitor(): Promise<void> {
    this.monitor = this.pgAutoctl('monitor', [
      'create',
      'monitor',
      ...['--pgdata', join(this.dir, 'monitor'), '--pgport', String(this.monitorPort)],
      ...['--hostname', '127.0.0.1', '--auth', 'trust', '--no-ssl', '--run'],
    ]);
    await until(() => this.states().then(() => true), 60_000, 'the monitor to answer');
    const admin = `postgres://postgres@127.0.0.1:${this.monitorPort}/pg_auto_failover`;
    for (const [name, value] of Object.entries(MONITOR_SETTINGS))
      await query(admin, `ALTER SYSTEM SET ${name} = ${value}`);
    await query(admin, 'SELECT pg_reload_conf()');
  }

  /** Adds a node and waits until it has its place: the first becomes the primary, the next its secondary. */
  async addNode(name: string, port: number): Promise<FormationNode> {
    const keeper = this.pgAutoctl(name, [
      'create',
      'postgres',
      ...['--pgdata', join(this.dir, name), '--pgport', String(port), '--pghost', '127.0.0.1'],
      ...['--listen', '127.0.0.1', '--hostname', '127.0.0.1', '--name', name, '--dbname', this.database],
      ...['--auth', 'trust', '--no-ssl', '--monitor', this.monitorUrl, '--run'],
    ]);
    const node = {
      name,
      port,
      keeper,
      url: (db = this.database) => `postgres://postgres@127.0.0.1:${port}/${db}`,
    };
    this.nodes.push(node);
    const settled = this.nodes.length === 1 ? ['single'] : ['primary', 'secondary'];
    const primary = this.nodes[0] as FormationNode;
    await until(
      async () => {
        const states = await this.states();
        if (states.length === this.nodes.length && states.every((s) => settled.includes(s.reported)))
          return true;
        // The standby's base backup waits for a checkpoint, which PostgreSQL spreads over minutes; asked for
        // one, it makes it at once.
        if (node !== primary) await query(primary.url('postgres'), 'CHECKPOINT').catch(() => {});
        return false;
      },
      120_000,
      `${name} to join the formation`,
    );
    return node;
  }

  /** Every node as the monitor sees it. */
  async states(): Promise<NodeState[]> {
    const rows = await query<{
      nodename: string;
      nodeport: number;
      reportedstate: string;
      goalstate: string;
    }>(
      this.monitorUrl,
      'SELECT nodename, nodeport, reportedstate::text, goalstate::text FROM pgautofailover.node ORDER BY nodeid',
    );
    return rows.map((row) => ({
      name: row.nodename,
      port: row.nodeport,
      reported: row.reportedstate,
      goal: row.goalstate,
    }));
  }

  async primary(): Promise<FormationNode> {
    const states = await this.states();
    const primary = states.find((state) => state.reported === 'primary');
    const node = this.nodes.find((candidate) => candidate.name === primary?.name);
    if (!node) throw new Error(`no primary in the formation: ${JSON.stringify(states)}`);
    return node;
  }

  /** The machine lost: the node's keeper, its PostgreSQL and every backend killed at once with SIGKILL. */
  kill(node: FormationNode): void {
    process.kill(-(node.keeper.pid as number), 'SIGKILL');
  }

  /** Stops what is left: each keeper stops its PostgreSQL on SIGTERM; past 15 s, SIGKILL. */
  async stop(): Promise<void> {
    const running = [...this.nodes.map((node) => node.keeper), this.monitor].filter(
      (child): child is ChildProcess =>
        child !== null && child.exitCode === null && child.signalCode === null,
    );
    const exited = running.map((child) => new Promise((resolve) => child.once('exit', resolve)));
    for (const child of running) signalGroup(child, 'SIGTERM');
    const timer = setTimeout(() => {
      for (const child of running) signalGroup(child, 'SIGKILL');
    }, 15_000);
    await Promise.all(exited);
    clearTimeout(timer);
  }

  /** `pg_autoctl` as the servers' user, in a process group of its own, its state and output in the folder. */
  private pgAutoctl(name: string, args: string[]): ChildProcess {
    const output = openSync(join(this.dir, `${name}.log`), 'a');
    return spawn('pg_autoctl', [...args, '--pgctl', join(PG_BIN, 'pg_ctl')], {
      ...(serverUser ?? {}),
      detached: true,
      stdio: ['ignore', output, output],
      env: {
        ...process.env,
        HOME: this.dir,
        XDG_CONFIG_HOME: join(this.dir, 'config'),
        XDG_DATA_HOME: join(this.dir, 'data'),
        XDG_RUNTIME_DIR: join(this.dir, 'run'),
        PG_CONFIG: join(PG_BIN, 'pg_config'),
        PATH: `${PG_BIN}:${process.env.PATH ?? ''}`,
      },
    });
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-(child.pid as number), signal);
  } catch {
    // Already gone.
  }
}

export async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`waited ${timeoutMs} ms for ${what}${last ? ` (last: ${(last as Error).message})` : ''}`);
}

import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { HostFollower, type HostPool } from './following.js';
import { type DatabaseTarget, wantsWrites } from './hosts.js';
import { type DatabaseCondition, databaseCondition } from './types.js';

/** Bounds of every wait on PostgreSQL, in milliseconds; 0 leaves that wait unbounded. */
export interface DatabaseTimeouts {
  /** Waiting for a pool connection, or for a new one to open. */
  acquireMs: number;
  /** One statement (`statement_timeout`). */
  statementMs: number;
  /** Waiting for one lock (`lock_timeout`). */
  lockMs: number;
  /** A transaction left open with nothing running (`idle_in_transaction_session_timeout`). */
  idleInTransactionMs: number;
}

export const UNBOUNDED: DatabaseTimeouts = {
  acquireMs: 0,
  statementMs: 0,
  lockMs: 0,
  idleInTransactionMs: 0,
};

/** How long asking a host its role may take when connections wait without bound. */
const PROBE_TIMEOUT_MS = 5_000;

/** How much longer than `statement_timeout` the client waits for an answer before it gives the connection up. */
const ANSWER_GRACE_MS = 1_000;

export interface DatabaseLog {
  warn(details: object, message: string): void;
}

export const silentLog: DatabaseLog = { warn: () => {} };

/** The connection settings every PostgreSQL connection of the service opens with. */
export function connectionSettings(url: string, timeouts: DatabaseTimeouts): pg.ClientConfig {
  return {
    connectionString: url,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(timeouts.acquireMs > 0 ? { connectionTimeoutMillis: timeouts.acquireMs } : {}),
    ...(timeouts.statementMs > 0 ? { statement_timeout: timeouts.statementMs } : {}),
    ...(timeouts.lockMs > 0 ? { lock_timeout: timeouts.lockMs } : {}),
    ...(timeouts.idleInTransactionMs > 0
      ? { idle_in_transaction_session_timeout: timeouts.idleInTransactionMs }
      : {}),
  };
}

/**
 * A connection that remembers the settings the server reports on it: `default_transaction_read_only` and (since
 * PostgreSQL 14) `in_hot_standby` are sent when the session starts and again whenever they change, so a
 * connection knows whether it can write without asking.
 */
class ReportingClient extends pg.Client {
  private readonly reported = new Map<string, string>();

  constructor(config: pg.ClientConfig) {
    super(config);
    (this as unknown as { connection: NodeJS.EventEmitter }).connection.on(
      'parameterStatus',
      (message: { parameterName: string; parameterValue: string }) => {
        this.reported.set(message.parameterName, message.parameterValue);
      },
    );
  }

  /** The session takes no writes: opened while the database was read-only, or on a standby. */
  get readOnly(): boolean {
    return (
      this.reported.get('default_transaction_read_only') === 'on' ||
      this.reported.get('in_hot_standby') === 'on'
    );
  }
}

/**
 * How long a condition the pool saw counts as the database's current one: under load it is seen again well within
 * it, and once it clears /readyz is 200 again this soon.
 */
const CONDITION_MEMORY_MS = 500;

/**
 * A `pg.Pool` that survives its connections dying. A connection lost while idle or in use is logged and dropped,
 * never an unhandled 'error' (which would end the process); the pool opens a new one when it is next needed. A
 * statement whose answer does not come within `statement_timeout` and a grace (a stalled network: the server's own
 * timeout cannot fire on a statement it never received) closes its connection, which fails the statement at once.
 *
 * A connection that cannot write (opened while the database was read-only or a standby, or refused a write) is
 * closed when it is released instead of going back to the pool: a session keeps the `default_transaction_read_only`
 * it started with, so keeping it would go on failing writes long after the database is writable again. The pool
 * also remembers the last condition a statement met (read-only, disk full, overloaded, unavailable), for half a
 * second.
 *
 * With several hosts named (libpq's multi-host URL), the connections go to the one that fits the target (see
 * `HostFollower`): a connection that fails or finds its host taking no writes makes the pool look for the host
 * again, and a connection that could not be opened, or was opened on a host that now takes no writes, is tried
 * once more on the host found, when that is another one (a failover: nothing was sent yet).
 */
export class GuardedPool implements PostgresPool {
  private readonly hosts: HostFollower;
  private readonly answerDeadlineMs: number;
  private readonly acquireMs: number;
  private readonly wantsWrites: boolean;
  private lastCondition: { condition: DatabaseCondition; at: number } | null = null;

  constructor(target: DatabaseTarget, max: number, timeouts: DatabaseTimeouts, log: DatabaseLog) {
    const openPool = (url: string) => {
      const pool = new pg.Pool({
        ...connectionSettings(url, timeouts),
        // Statements made side by side in a transaction go out together (see `pipelining`); one at a time, as
        // everywhere else, nothing changes.
        pipeline: true,
        max,
        Client: ReportingClient as unknown as NonNullable<pg.PoolConfig['Client']>,
      });
      // The pool drops an idle connection that fails and re-emits the failure, which its client has logged below.
      pool.on('error', () => {});
      pool.on('connect', (client) => {
        client.on('error', (err) => log.warn({ err }, 'a database connection was lost; it is replaced'));
      });
      return pool;
    };
    this.hosts = new HostFollower(target, openPool, timeouts.acquireMs || PROBE_TIMEOUT_MS, log);
    this.answerDeadlineMs = timeouts.statementMs > 0 ? timeouts.statementMs + ANSWER_GRACE_MS : 0;
    this.acquireMs = timeouts.acquireMs;
    this.wantsWrites = wantsWrites(target.attrs);
  }

  /** The condition a statement or a connection attempt met within the last half second, if any. */
  recentCondition(): DatabaseCondition | null {
    const last = this.lastCondition;
    return last && Date.now() - last.at <= CONDITION_MEMORY_MS ? last.condition : null;
  }

  /** The connection string of the host in use now (once a search under way has found it). */
  async currentHost(): Promise<string> {
    return (await this.hosts.pool(this.deadline())).url;
  }

  /** The connection string of the host in use now; null while none is known. */
  hostInUse(): string | null {
    return this.hosts.inUse();
  }

  /** Something on a connection of our own to `url` (a listening one) suggests the host may have changed role. */
  suspect(url: string): void {
    this.hosts.suspect(url);
  }

  private noticed(error: unknown): DatabaseCondition | null {
    const condition = databaseCondition(error);
    if (condition) this.lastCondition = { condition, at: Date.now() };
    return condition;
  }

  private deadline(): number {
    return this.acquireMs > 0 ? Date.now() + this.acquireMs : Number.POSITIVE_INFINITY;
  }

  async connect(): Promise<PostgresPoolClient> {
    const { url, client } = await this.acquire();
    let broken: Error | undefined;
    const deadlineMs = this.answerDeadlineMs;
    const noticed = (error: unknown) => this.noticed(error);
    const hosts = this.hosts;
    const guarded = {
      // A statement's text and parameters, or one query config (a named, prepared statement).
      async query(statement: string | pg.QueryConfig, parameters?: readonly unknown[]) {
        const deadline =
          deadlineMs > 0
            ? setTimeout(() => {
                broken ??= new Error(`no answer from the database within ${deadlineMs} ms`);
                client.connection.stream.destroy();
              }, deadlineMs)
            : null;
        try {
          return await client.query(statement, parameters as unknown[] | undefined);
        } catch (error) {
          const condition = noticed(error);
          if (condition === 'read_only' || isConnectionFailure(error)) {
            broken ??= error as Error;
            hosts.suspect(url);
          }
          throw error;
        } finally {
          if (deadline) clearTimeout(deadline);
        }
      },
      release() {
        if (!broken && (client as unknown as ReportingClient).readOnly)
          broken = new Error('the connection was opened read-only');
        client.release(broken);
      },
    };
    return guarded as unknown as PostgresPoolClient;
  }

  /**
   * A connection to the host in use. With several hosts, one that could not be opened or was opened on a host that
   * takes no writes (when writes are wanted) is tried again once on the host found next, if that is another one.
   */
  private async acquire(): Promise<{ url: string; client: pg.PoolClient }> {
    const deadline = this.deadline();
    let host = await this.hostBy(deadline);
    for (let retried = false; ; retried = true) {
      let failure: unknown;
      try {
        const client = await host.pool.connect();
        if (!this.hosts.following || !this.wantsWrites || !(client as unknown as ReportingClient).readOnly)
          return { url: host.url, client };
        failure = Object.assign(new Error('the host takes no writes now'), { code: '25006' });
        client.release(failure as Error);
      } catch (error) {
        failure = error;
      }
      const moved = databaseCondition(failure) === 'read_only' || isConnectionFailure(failure);
      if (!this.hosts.following || retried || !moved) this.fail(failure);
      this.hosts.suspect(host.url);
      const next = await this.hostBy(deadline);
      if (next.url === host.url) this.fail(failure);
      host = next;
    }
  }

  /** Remembers the condition `failure` reveals, and throws it. */
  private fail(failure: unknown): never {
    this.noticed(failure);
    throw failure;
  }

  private async hostBy(deadline: number): Promise<HostPool> {
    try {
      return await this.hosts.pool(deadline);
    } catch (error) {
      this.noticed(error);
      throw error;
    }
  }

  end(): Promise<void> {
    return this.hosts.end();
  }
}

/** The connection itself failed (as opposed to a statement the server refused). */
function isConnectionFailure(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (e?.code && /^[0-9A-Z]{5}$/.test(e.code)) return e.code.startsWith('08') || e.code.startsWith('57P');
  return true;
}

import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';
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
 */
export class GuardedPool implements PostgresPool {
  private readonly pool: pg.Pool;
  private readonly answerDeadlineMs: number;
  private lastCondition: { condition: DatabaseCondition; at: number } | null = null;

  constructor(url: string, max: number, timeouts: DatabaseTimeouts, log: DatabaseLog) {
    this.pool = new pg.Pool({
      ...connectionSettings(url, timeouts),
      // Statements made side by side in a transaction go out together (see `pipelining`); one at a time, as
      // everywhere else, nothing changes.
      pipeline: true,
      max,
      Client: ReportingClient as unknown as NonNullable<pg.PoolConfig['Client']>,
    });
    this.answerDeadlineMs = timeouts.statementMs > 0 ? timeouts.statementMs + ANSWER_GRACE_MS : 0;
    // The pool drops an idle connection that fails and re-emits the failure, which its client has logged below.
    this.pool.on('error', () => {});
    this.pool.on('connect', (client) => {
      client.on('error', (err) => log.warn({ err }, 'a database connection was lost; it is replaced'));
    });
  }

  /** The condition a statement or a connection attempt met within the last half second, if any. */
  recentCondition(): DatabaseCondition | null {
    const last = this.lastCondition;
    return last && Date.now() - last.at <= CONDITION_MEMORY_MS ? last.condition : null;
  }

  private noticed(error: unknown): DatabaseCondition | null {
    const condition = databaseCondition(error);
    if (condition) this.lastCondition = { condition, at: Date.now() };
    return condition;
  }

  async connect(): Promise<PostgresPoolClient> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      this.noticed(error);
      throw error;
    }
    let broken: Error | undefined;
    const deadlineMs = this.answerDeadlineMs;
    const noticed = (error: unknown) => this.noticed(error);
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
          if (condition === 'read_only' || isConnectionFailure(error)) broken ??= error as Error;
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

  end(): Promise<void> {
    return this.pool.end();
  }
}

/** The connection itself failed (as opposed to a statement the server refused). */
function isConnectionFailure(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (e?.code && /^[0-9A-Z]{5}$/.test(e.code)) return e.code.startsWith('08') || e.code.startsWith('57P');
  return true;
}

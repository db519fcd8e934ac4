import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';

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
 * A `pg.Pool` that survives its connections dying. A connection lost while idle or in use is logged and dropped,
 * never an unhandled 'error' (which would end the process); the pool opens a new one when it is next needed. A
 * statement whose answer does not come within `statement_timeout` and a grace (a stalled network: the server's own
 * timeout cannot fire on a statement it never received) closes its connection, which fails the statement at once.
 */
export class GuardedPool implements PostgresPool {
  private readonly pool: pg.Pool;
  private readonly answerDeadlineMs: number;

  constructor(url: string, max: number, timeouts: DatabaseTimeouts, log: DatabaseLog) {
    this.pool = new pg.Pool({ ...connectionSettings(url, timeouts), max });
    this.answerDeadlineMs = timeouts.statementMs > 0 ? timeouts.statementMs + ANSWER_GRACE_MS : 0;
    // The pool drops an idle connection that fails and re-emits the failure, which its client has logged below.
    this.pool.on('error', () => {});
    this.pool.on('connect', (client) => {
      client.on('error', (err) => log.warn({ err }, 'a database connection was lost; it is replaced'));
    });
  }

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    const deadlineMs = this.answerDeadlineMs;
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
          if (isConnectionFailure(error)) broken ??= error as Error;
          throw error;
        } finally {
          if (deadline) clearTimeout(deadline);
        }
      },
      release() {
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

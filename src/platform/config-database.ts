import { ConfigError, type Env, int, raw } from './config-env.js';
import { DatabaseUrlError, parseDatabaseUrl, SESSION_ATTRS, type SessionAttrs } from './db/hosts.js';
import type { DatabaseTimeouts } from './db/pool.js';

/**
 * Bounds of every wait on PostgreSQL (milliseconds; 0 = none), how long start-up waits for it, and the replica
 * the public market reads may go to, with how long such a read waits for it to catch up before it goes to the
 * primary.
 */
export interface DatabaseConfig {
  poolSize: number;
  timeouts: DatabaseTimeouts;
  startupTimeoutMs: number;
  replica: { url: string; waitMs: number } | null;
}

export function databaseConfig(env: Env): DatabaseConfig {
  const timeouts = {
    acquireMs: int(env, 'DATABASE_ACQUIRE_TIMEOUT_MS', 2000, 0, 600_000),
    statementMs: int(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 5000, 0, 3_600_000),
    lockMs: int(env, 'DATABASE_LOCK_TIMEOUT_MS', 2000, 0, 3_600_000),
    idleInTransactionMs: int(env, 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 10_000, 0, 3_600_000),
  };
  // A lock wait is a statement: at or past the statement timeout, a busy option would never be told apart.
  if (timeouts.statementMs > 0 && (timeouts.lockMs === 0 || timeouts.lockMs >= timeouts.statementMs)) {
    throw new ConfigError('DATABASE_LOCK_TIMEOUT_MS', 'must be set below DATABASE_STATEMENT_TIMEOUT_MS');
  }
  return {
    poolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    timeouts,
    startupTimeoutMs: int(env, 'DATABASE_STARTUP_TIMEOUT_MS', 60_000, 0, 3_600_000),
    replica: replicaConfig(env),
  };
}

/**
 * A PostgreSQL connection string, libpq's multi-host form included, whose `target_session_attrs` is one of
 * `allowed`.
 */
export function postgresUrl(env: Env, name: string, allowed: readonly SessionAttrs[]): string | null {
  const value = raw(env, name);
  if (value === undefined) return null;
  try {
    const { attrs } = parseDatabaseUrl(value);
    if (!allowed.includes(attrs))
      throw new DatabaseUrlError(
        `has target_session_attrs=${attrs}; it must be one of ${allowed.join(', ')}`,
      );
  } catch (error) {
    if (error instanceof DatabaseUrlError) throw new ConfigError(name, error.message);
    throw error;
  }
  return value;
}

/** The replica the public market reads may go to (any host will do: a standby, or the primary itself). */
function replicaConfig(env: Env): DatabaseConfig['replica'] {
  const readUrl = postgresUrl(env, 'DATABASE_READ_URL', SESSION_ATTRS);
  const waitMs = int(env, 'DATABASE_READ_WAIT_MS', 100, 0, 60_000);
  if (readUrl === null) return null;
  if (raw(env, 'DATABASE_URL') === undefined)
    throw new ConfigError(
      'DATABASE_READ_URL',
      'is set but DATABASE_URL is not (a replica needs its primary)',
    );
  return { url: readUrl, waitMs };
}

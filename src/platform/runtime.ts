import { Redis } from 'ioredis';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/database.js';
import { addressOf, parseDatabaseUrl } from './db/hosts.js';
import { migrateToLatest } from './db/migrate.js';
import type { DatabaseLog } from './db/pool.js';
import { databaseCondition } from './db/types.js';

/** Opens the configured database and brings its schema up to date. */
export async function openConfiguredDatabase(config: Config, log?: DatabaseLog): Promise<Database> {
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.database.poolSize,
    replica: config.database.replica ?? undefined,
    timeouts: config.database.timeouts,
    ...(log ? { log } : {}),
    prepareThreshold: config.pgPrepareThreshold,
  });
  try {
    await migrateToLatest(database.db);
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
  return database;
}

export interface StartupLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** The first pause between attempts to reach the database at start, doubled after each, up to the longest. */
const FIRST_RETRY_MS = 250;
const LONGEST_RETRY_MS = 1_000;

/** The database could not be reached at start within `DATABASE_STARTUP_TIMEOUT_MS`. */
export class DatabaseNotReachedError extends Error {
  constructor(where: string, waitedMs: number, attempts: number, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `the database at ${where} could not be reached in ${Math.round(waitedMs / 1000)} s (${attempts} attempts; ` +
        `last: ${reason}). Check DATABASE_URL and that PostgreSQL is running, or wait longer with ` +
        'DATABASE_STARTUP_TIMEOUT_MS.',
    );
    this.name = 'DatabaseNotReachedError';
  }
}

/** Where a connection string points, without its credentials (every host of a multi-host one). */
export function databaseAddress(url: string): string {
  return addressOf(parseDatabaseUrl(url));
}

/**
 * Opens the configured database as `openConfiguredDatabase` does, waiting for PostgreSQL when it is not there yet (a
 * database that starts after the service, a failover in progress): each failed attempt for a reason of the
 * database's (out of reach, starting up, read-only, overloaded) is logged and tried again after a back-off (250 ms,
 * doubled up to 1 s) until `DATABASE_STARTUP_TIMEOUT_MS` has passed; then, or at once for any other failure (wrong
 * password, no such database), it throws.
 */
export async function openDatabaseWhenReachable(
  config: Config,
  log: StartupLog,
  databaseLog?: DatabaseLog,
): Promise<Database> {
  const started = Date.now();
  const limitMs = config.database.startupTimeoutMs;
  let pause = FIRST_RETRY_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      const database = await openConfiguredDatabase(config, databaseLog);
      if (attempt > 1) log.info({ attempt, waitedMs: Date.now() - started }, 'the database answered');
      return database;
    } catch (error) {
      const url = config.databaseUrl;
      if (url === null || databaseCondition(error) === null) throw error;
      const waitedMs = Date.now() - started;
      if (waitedMs + pause > limitMs)
        throw new DatabaseNotReachedError(databaseAddress(url), waitedMs, attempt, error);
      log.warn(
        { attempt, database: databaseAddress(url), cause: (error as Error).message, retryInMs: pause },
        'waiting for the database',
      );
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, LONGEST_RETRY_MS);
    }
  }
}

/**
 * Redis, for what it accelerates: commands fail at once while it is unreachable (no offline queue) and after
 * `timeoutMs` when it stalls, and it reconnects by itself (every 2 s at most). Its users handle the failures (the
 * rate limit's circuit stops asking a Redis that does not answer); a listener here keeps a connection error from
 * being an unhandled 'error' event.
 */
export function connectRedis(url: string | null, timeoutMs = 100): Redis | null {
  if (!url) return null;
  const redis = new Redis(url, {
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    commandTimeout: timeoutMs,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    lazyConnect: false,
  });
  redis.on('error', () => {});
  return redis;
}

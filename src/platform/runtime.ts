import { Redis } from 'ioredis';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import type { DatabaseLog } from './db/pool.js';

/** Opens the configured database and brings its schema up to date. */
export async function openConfiguredDatabase(config: Config, log?: DatabaseLog): Promise<Database> {
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.database.poolSize,
    timeouts: config.database.timeouts,
    ...(log ? { log } : {}),
    prepareThreshold: config.pgPrepareThreshold,
  });
  await migrateToLatest(database.db);
  return database;
}

/** How long a Redis command may take before the caller counts without it. */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * Redis, for what it accelerates: commands fail at once while it is unreachable (no offline queue) and after
 * REDIS_COMMAND_TIMEOUT_MS when it stalls, and it reconnects by itself (every 2 s at most). Its users handle the
 * failures; a listener here keeps a connection error from being an unhandled 'error' event.
 */
export function connectRedis(url: string | null): Redis | null {
  if (!url) return null;
  const redis = new Redis(url, {
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    lazyConnect: false,
  });
  redis.on('error', () => {});
  return redis;
}

import { Redis } from 'ioredis';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';

/** Opens the configured database and brings its schema up to date. */
export async function openConfiguredDatabase(config: Config): Promise<Database> {
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  await migrateToLatest(database.db);
  return database;
}

export function connectRedis(url: string | null): Redis | null {
  if (!url) return null;
  return new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
}

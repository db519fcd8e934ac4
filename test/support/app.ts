import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { AuditRepository } from '../../src/modules/ledger/audit.js';
import { type Config, loadConfig } from '../../src/platform/config.js';
import { type Database, openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import type { DatabaseTimeouts } from '../../src/platform/db/pool.js';
import { enforceContract } from './contract.js';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || null;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

export interface TestDatabase {
  database: Database;
  url: string | null;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file: in-memory PGlite, or a new database on PostgreSQL (with `timeouts`,
 * the bounds its connections set, as the service's configuration would).
 */
export async function createTestDatabase(timeouts: Partial<DatabaseTimeouts> = {}): Promise<TestDatabase> {
  if (!TEST_DATABASE_URL) {
    const database = await openDatabase({ url: null, dataDir: null });
    await migrateToLatest(database.db);
    return { database, url: null, drop: () => database.close() };
  }
  const name = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString(), dataDir: null, poolSize: 20, timeouts });
  await migrateToLatest(database.db);
  return {
    database,
    url: url.toString(),
    async drop() {
      await database.close();
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      // The pool's connections say goodbye asynchronously; forcing the drop while they do would make the
      // server's termination notice an uncaught error in a client that is already closing.
      for (let i = 0; i < 50; i++) {
        const { rows } = await client.query(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
          [name],
        );
        if (rows[0]?.n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * The key that seals webhook secrets in this test process: one for every app it builds (two instances on one
 * database must share it), and never a key file in the working copy's ./data.
 */
export const TEST_SECRETS_KEY = randomBytes(32).toString('base64');

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    RATE_LIMIT_MAX: '100000',
    ORDER_RATE_LIMIT: '1000000',
    SEED_DEMO: 'false',
    JOBS_ENABLED: 'false',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    SECRETS_KEY: TEST_SECRETS_KEY,
    // Never the working copy's ./data, which `npm start` uses.
    AVATAR_DIR: join(tmpdir(), `pmx-test-avatars-${process.pid}`),
    ...overrides,
  });
}

export interface TestApp {
  app: FastifyInstance;
  database: Database;
  config: Config;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Share the database of another test app (two instances on one database). */
  database?: TestDatabase;
  redis?: boolean;
  /** Where the app's log lines go instead of stdout. */
  logStream?: { write(line: string): void };
}

export async function createTestApp(
  options: TestAppOptions = {},
): Promise<TestApp & { testDatabase: TestDatabase }> {
  const testDatabase = options.database ?? (await createTestDatabase());
  const config = testConfig(options.env);
  const redis = options.redis ? new Redis(TEST_REDIS_URL) : null;
  const app = await buildApp({
    config,
    database: testDatabase.database,
    redis,
    ...(options.logStream ? { logStream: options.logStream } : {}),
  });
  enforceContract(app);
  await app.ready();
  return {
    app,
    database: testDatabase.database,
    testDatabase,
    config,
    async close() {
      await app.close();
      redis?.disconnect();
      if (!options.database) await testDatabase.drop();
    },
  };
}

export interface TwoInstances {
  db: TestDatabase;
  a: TestApp;
  b: TestApp;
}

/** Two instances of the app on one database, as two servers of one deployment. */
export async function createTwoInstances(env: Record<string, string> = {}): Promise<TwoInstances> {
  const db = await createTestDatabase();
  const a = await createTestApp({ database: db, env });
  const b = await createTestApp({ database: db, env });
  return { db, a, b };
}

export async function closeTwoInstances({ db, a, b }: TwoInstances): Promise<void> {
  await a.close();
  await b.close();
  await db.drop();
}

/** Fails with the list of violations when any ledger invariant is broken. */
export async function expectInvariants(database: Database): Promise<void> {
  const results = await new AuditRepository().run(database.db);
  const broken = results.filter((result) => !result.ok);
  if (broken.length) {
    throw new Error(
      `ledger invariants broken:\n${broken.map((b) => `${b.invariant}\n  ${b.violations.join('\n  ')}`).join('\n')}`,
    );
  }
}

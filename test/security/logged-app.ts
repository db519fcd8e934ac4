import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Database } from '../../src/platform/db/database.js';
import { createTestDatabase, testConfig } from '../support/app.js';
import { enforceContract } from '../support/contract.js';

export interface LoggedApp {
  app: FastifyInstance;
  database: Database;
  /** Every log line the app wrote, as written. */
  lines: string[];
  close(): Promise<void>;
}

/** The test app, built like production but with its log lines captured instead of printed. */
export async function createLoggedApp(env: Record<string, string>): Promise<LoggedApp> {
  const testDatabase = await createTestDatabase();
  const lines: string[] = [];
  const app = await buildApp({
    config: testConfig(env),
    database: testDatabase.database,
    redis: null,
    logStream: { write: (line) => lines.push(line) },
  });
  enforceContract(app);
  await app.ready();
  return {
    app,
    database: testDatabase.database,
    lines,
    async close() {
      await app.close();
      await testDatabase.drop();
    },
  };
}

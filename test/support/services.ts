import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../src/platform/db/database.js';
import { createMetrics } from '../../src/platform/metrics.js';
import { createServices, type Services } from '../../src/services.js';
import { createTestDatabase, testConfig } from './app.js';

/** A logger that says nothing, for services built outside the app. */
function silentLogger(): FastifyBaseLogger {
  const nothing = () => {};
  const logger = {
    level: 'silent',
    fatal: nothing,
    error: nothing,
    warn: nothing,
    info: nothing,
    debug: nothing,
    trace: nothing,
    silent: nothing,
    child: () => logger,
  };
  return logger as unknown as FastifyBaseLogger;
}

export interface TestServices {
  services: Services;
  database: Database;
  close(): Promise<void>;
}

/**
 * Every service of the product with its real repositories, on a fresh migrated database (PGlite, or a database of
 * its own on PostgreSQL with TEST_DATABASE_URL), wired as the app wires them, in one line:
 *
 *   const { services, close } = await testServices();
 *
 * For a test of a service's rules without HTTP in between; `env` overrides the test configuration.
 */
export async function testServices(env: Record<string, string> = {}): Promise<TestServices> {
  const testDatabase = await createTestDatabase();
  const services = await createServices({
    config: testConfig(env),
    database: testDatabase.database,
    log: silentLogger(),
    metrics: createMetrics(),
  });
  return {
    services,
    database: testDatabase.database,
    async close() {
      await services.trading.drain();
      await testDatabase.drop();
    },
  };
}

import { loadConfig } from '../platform/config.js';
import { openDatabase } from '../platform/db/database.js';
import { migrateToLatest } from '../platform/db/migrate.js';

const config = loadConfig();
const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
try {
  const applied = await migrateToLatest(database.db);
  process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
} finally {
  await database.close();
}

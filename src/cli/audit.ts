import { AuditRepository } from '../modules/ledger/audit.js';
import { loadConfig } from '../platform/config.js';
import { openDatabase } from '../platform/db/database.js';

/** Checks the ledger invariants on the configured database; exits 1 when any fails. */
const config = loadConfig();
const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
try {
  const results = await new AuditRepository().run(database.db);
  for (const result of results) {
    process.stdout.write(`${result.ok ? 'ok  ' : 'FAIL'} ${result.invariant}\n`);
    for (const violation of result.violations) process.stdout.write(`       ${violation}\n`);
  }
  process.exitCode = results.every((result) => result.ok) ? 0 : 1;
} finally {
  await database.close();
}

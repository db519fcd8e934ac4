import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/platform/db/database.js';
import { createTestDatabase, TEST_DATABASE_URL } from '../../support/app.js';

/** Statements the process repeats become named prepared statements on PostgreSQL, a bounded number of them. */
describe.skipIf(!TEST_DATABASE_URL)('prepared statements on PostgreSQL', () => {
  it('prepares a statement run often enough, on each connection that runs it, and nothing else', async () => {
    const test = await createTestDatabase();
    const url = test.url as string;
    const database = await openDatabase({ url, dataDir: null, poolSize: 1, prepareThreshold: 3 });
    try {
      const prepared = async () =>
        (
          await sql<{
            statement: string;
          }>`SELECT statement FROM pg_prepared_statements ORDER BY name`.execute(database.db)
        ).rows.map((row) => row.statement);
      const repeated = (n: number) => sql<{ n: number }>`SELECT ${n}::int + 1 AS n`.execute(database.db);
      for (let i = 0; i < 2; i++) expect((await repeated(i)).rows[0]?.n).toBe(i + 1);
      expect(await prepared()).toEqual([]);
      for (let i = 2; i < 6; i++) expect((await repeated(i)).rows[0]?.n).toBe(i + 1);
      const statements = await prepared();
      expect(statements).toHaveLength(1);
      expect(statements[0]).toContain('SELECT $1::int + 1 AS n');
      // A transaction of prepared statements commits and rolls back as any other.
      await expect(
        database.db.transaction().execute(async (trx) => {
          await sql`SELECT ${1}::int + 1 AS n`.execute(trx);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect((await repeated(41)).rows[0]?.n).toBe(42);
    } finally {
      await database.close();
      await test.drop();
    }
  });

  it('never prepares when the threshold is 0', async () => {
    const test = await createTestDatabase();
    const database = await openDatabase({
      url: test.url as string,
      dataDir: null,
      poolSize: 1,
      prepareThreshold: 0,
    });
    try {
      for (let i = 0; i < 10; i++) await sql`SELECT ${i}::int AS n`.execute(database.db);
      const { rows } = await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM pg_prepared_statements`.execute(database.db);
      expect(rows[0]?.n).toBe(0);
    } finally {
      await database.close();
      await test.drop();
    }
  });
});

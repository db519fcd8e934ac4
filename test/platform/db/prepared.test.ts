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

  it('gives a text one name whichever pool runs it: reads that fall back to the primary share its connections', async () => {
    const test = await createTestDatabase();
    // A replica that refuses every connection: the reads take the primary's one connection instead.
    const database = await openDatabase({
      url: test.url as string,
      replica: { url: 'postgres://postgres@127.0.0.1:1/none', waitMs: 100 },
      dataDir: null,
      poolSize: 1,
      prepareThreshold: 2,
    });
    try {
      for (let i = 0; i < 3; i++) {
        const written = await sql<{ n: number }>`SELECT ${i}::int * 2 AS n`.execute(database.db);
        expect(written.rows[0]?.n).toBe(i * 2);
      }
      for (let i = 0; i < 3; i++) {
        const read = await sql<{ n: number }>`SELECT ${i}::int * 3 AS n`.execute(database.reads);
        expect(read.rows[0]?.n).toBe(i * 3);
      }
      const { rows } = await sql<{
        name: string;
        statement: string;
      }>`SELECT name, statement FROM pg_prepared_statements ORDER BY name`.execute(database.db);
      expect(rows.map((row) => row.statement.replace(/\s+/g, ' '))).toEqual([
        expect.stringContaining('SELECT $1::int * 2 AS n'),
        expect.stringContaining('SELECT $1::int * 3 AS n'),
      ]);
      expect(new Set(rows.map((row) => row.name)).size).toBe(2);
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

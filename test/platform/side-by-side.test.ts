import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { sideBySide } from '../../src/platform/db/side-by-side.js';
import { createTestDatabase } from '../support/app.js';

/** The statements of one transaction sent side by side (PGlite, or PostgreSQL with TEST_DATABASE_URL). */
describe('statements side by side in one transaction', () => {
  it('runs them in the order given and answers each its own result', async () => {
    const test = await createTestDatabase();
    const { database } = test;
    try {
      await sql`CREATE TABLE side_by_side (n int PRIMARY KEY)`.execute(database.db);
      const results = await database.db
        .transaction()
        .execute((trx) =>
          sideBySide([
            sql`INSERT INTO side_by_side VALUES (1)`.execute(trx),
            sql<{ n: number }>`SELECT count(*)::int AS n FROM side_by_side`.execute(trx),
            sql`INSERT INTO side_by_side VALUES (2)`.execute(trx),
            sql<{ n: number }>`SELECT count(*)::int AS n FROM side_by_side`.execute(trx),
          ] as const),
        );
      // Each SELECT sees the INSERTs before it and none after.
      expect(results[1].rows[0]?.n).toBe(1);
      expect(results[3].rows[0]?.n).toBe(2);
    } finally {
      await test.drop();
    }
  });

  it('fails with the first statement that failed, and the transaction writes nothing', async () => {
    const test = await createTestDatabase();
    const { database } = test;
    try {
      await sql`CREATE TABLE side_by_side (n int PRIMARY KEY)`.execute(database.db);
      const failed = database.db
        .transaction()
        .execute((trx) =>
          sideBySide([
            sql`INSERT INTO side_by_side VALUES (1)`.execute(trx),
            sql`INSERT INTO side_by_side VALUES (1)`.execute(trx),
            sql`INSERT INTO side_by_side VALUES (2)`.execute(trx),
          ] as const),
        );
      // The duplicate key, not the "transaction is aborted" the statement after it met.
      await expect(failed).rejects.toMatchObject({ code: '23505' });
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM side_by_side`.execute(
        database.db,
      );
      expect(rows[0]?.n).toBe(0);
      // The connection serves the next transaction as any other.
      await database.db.transaction().execute((trx) => sql`INSERT INTO side_by_side VALUES (3)`.execute(trx));
      const after = await sql<{ n: number }>`SELECT n FROM side_by_side`.execute(database.db);
      expect(after.rows).toEqual([{ n: 3 }]);
    } finally {
      await test.drop();
    }
  });
});

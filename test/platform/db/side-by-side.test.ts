import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../../src/platform/db/database.js';
import { pipelining, sideBySide } from '../../../src/platform/db/side-by-side.js';
import { createTestDatabase, TEST_DATABASE_URL } from '../../support/app.js';

/** Runs `test` on a throw-away database holding an empty table `side_by_side (n int PRIMARY KEY)`. */
async function withTable(test: (database: Database) => Promise<void>): Promise<void> {
  const created = await createTestDatabase();
  try {
    await sql`CREATE TABLE side_by_side (n int PRIMARY KEY)`.execute(created.database.db);
    await test(created.database);
  } finally {
    await created.drop();
  }
}

/** The statements of one transaction sent side by side (PGlite, or PostgreSQL with TEST_DATABASE_URL). */
describe('statements side by side in one transaction', () => {
  it('runs them in the order made and answers each its own result', async () => {
    await withTable(async (database) => {
      const results = await database.db
        .transaction()
        .execute((transaction) =>
          pipelining(transaction, (trx) =>
            sideBySide([
              sql`INSERT INTO side_by_side VALUES (1)`.execute(trx),
              sql<{ n: number }>`SELECT count(*)::int AS n FROM side_by_side`.execute(trx),
              sql`INSERT INTO side_by_side VALUES (2)`.execute(trx),
              sql<{ n: number }>`SELECT count(*)::int AS n FROM side_by_side`.execute(trx),
            ] as const),
          ),
        );
      // Each SELECT sees the INSERTs before it and none after.
      expect(results[1].rows[0]?.n).toBe(1);
      expect(results[3].rows[0]?.n).toBe(2);
    });
  });

  it('fails with the first statement that failed, and the transaction writes nothing', async () => {
    await withTable(async (database) => {
      const failed = database.db
        .transaction()
        .execute((transaction) =>
          pipelining(transaction, (trx) =>
            sideBySide([
              sql`INSERT INTO side_by_side VALUES (1)`.execute(trx),
              sql`INSERT INTO side_by_side VALUES (1)`.execute(trx),
              sql`INSERT INTO side_by_side VALUES (2)`.execute(trx),
            ] as const),
          ),
        );
      // The duplicate key, not the "transaction is aborted" the statement after it met.
      await expect(failed).rejects.toMatchObject({ code: '23505' });
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM side_by_side`.execute(
        database.db,
      );
      expect(rows[0]?.n).toBe(0);
      // The connection serves the next transaction as any other, pipelined or not.
      await database.db.transaction().execute((trx) => sql`INSERT INTO side_by_side VALUES (3)`.execute(trx));
      await database.db
        .transaction()
        .execute((transaction) =>
          pipelining(transaction, (trx) => sql`INSERT INTO side_by_side VALUES (4)`.execute(trx)),
        );
      const after = await sql<{ n: number }>`SELECT n FROM side_by_side ORDER BY n`.execute(database.db);
      expect(after.rows).toEqual([{ n: 3 }, { n: 4 }]);
    });
  });

  it('a statement that awaits the one before it still sees what that one wrote', async () => {
    await withTable(async (database) => {
      const seen = await database.db.transaction().execute((transaction) =>
        pipelining(transaction, async (trx) => {
          await sql`INSERT INTO side_by_side VALUES (1)`.execute(trx);
          const { rows } = await sql<{ n: number }>`SELECT max(n)::int AS n FROM side_by_side`.execute(trx);
          await sql`INSERT INTO side_by_side VALUES (${(rows[0]?.n ?? 0) + 1})`.execute(trx);
          return sql<{ n: number }>`SELECT n FROM side_by_side ORDER BY n`.execute(trx);
        }),
      );
      expect(seen.rows).toEqual([{ n: 1 }, { n: 2 }]);
    });
  });
});

describe.skipIf(!TEST_DATABASE_URL)('statements side by side on PostgreSQL', () => {
  it('go out together: the second runs while this thread is still busy after sending both', async () => {
    const test = await createTestDatabase();
    const { database } = test;
    try {
      const ran = await database.db.transaction().execute((transaction) =>
        pipelining(transaction, async (trx) => {
          const first = sql`SELECT 1`.execute(trx);
          const second = sql<{ at: Date }>`SELECT clock_timestamp() AS at`.execute(trx);
          // The thread does not come back to the connection for 300 ms: a statement sent only once the one before
          // it has answered would run after that.
          const busyUntil = Date.now() + 300;
          while (Date.now() < busyUntil) {}
          const [, at] = await sideBySide([first, second] as const);
          return { at: (at.rows[0] as { at: Date }).at.getTime(), busyUntil };
        }),
      );
      expect(ran.at).toBeLessThan(ran.busyUntil - 100);
    } finally {
      await test.drop();
    }
  });
});

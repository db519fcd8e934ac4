import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditRepository } from '../../../src/modules/ledger/audit.js';
import { createTestApp, expectInvariants, type TestApp, type TestDatabase } from '../../support/app.js';
import { createMarket, limitOrder } from '../../support/exchange.js';
import { newAdmin, newUser } from '../../support/factories.js';

/**
 * The references of the trading tables, checked by the database once per statement (migration 110) instead of by
 * declared foreign keys: each must refuse and keep exactly what its foreign key did. On PGlite, and on PostgreSQL
 * with TEST_DATABASE_URL (where two sessions also race a delete against an insert).
 */
let t: TestApp & { testDatabase: TestDatabase };
const MISSING = 999_999_999;

interface Reference {
  name: string;
  table_name: string;
  column_name: string;
  referenced_table: string;
}

beforeAll(async () => {
  t = await createTestApp();
  // A market with trading in it, so that every table that points holds rows.
  const admin = await newAdmin(t.app);
  const market = await createMarket(t.app, admin.token, { options: [{ label: 'Hot' }] });
  const optionId = market.options[0]?.id as string;
  const [maker, taker] = [await newUser(t.app), await newUser(t.app)];
  const order = { optionId, side: 'YES' as const, quantity: 5, price: 40 };
  expect((await limitOrder(t.app, maker.token, { ...order, action: 'BUY' })).statusCode).toBe(201);
  expect(
    (await limitOrder(t.app, taker.token, { ...order, side: 'NO', action: 'BUY', price: 60 })).statusCode,
  ).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

async function references(): Promise<Reference[]> {
  const { rows } = await sql<Reference>`SELECT * FROM statement_references ORDER BY name`.execute(
    t.database.db,
  );
  return rows;
}

/**
 * Inserts a copy of one of the table's rows (a new id) with `overrides`, in one statement with an unchanged copy
 * (but for positions, one per user, option and side).
 */
function insertCopies(table: string, overrides: Record<string, unknown>) {
  const copy = (changes: Record<string, unknown>) => sql`
    SELECT (jsonb_populate_record(NULL::${sql.table(table)},
      to_jsonb(c) || jsonb_build_object('id', nextval(pg_get_serial_sequence(${table}, 'id'))) || ${JSON.stringify(changes)}::jsonb)).*
    FROM (SELECT * FROM ${sql.table(table)} ORDER BY id LIMIT 1) c`;
  const rows = table === 'positions' ? copy(overrides) : sql`${copy({})} UNION ALL ${copy(overrides)}`;
  return sql`INSERT INTO ${sql.table(table)} OVERRIDING SYSTEM VALUE ${rows}`.execute(t.database.db);
}

async function count(table: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(
    t.database.db,
  );
  return rows[0]?.n as number;
}

describe('references checked once per statement', () => {
  it('replace every foreign key they list, and only those', async () => {
    const listed = await references();
    expect(listed.length).toBe(17);
    const { rows: declared } = await sql<{ conname: string }>`
      SELECT conname FROM pg_constraint WHERE contype = 'f' AND conname IN (SELECT name FROM statement_references)`.execute(
      t.database.db,
    );
    expect(declared).toEqual([]);
    const { rows: triggers } = await sql<{ table: string }>`
      SELECT tgrelid::regclass::text AS table FROM pg_trigger WHERE tgname = 'references_checked' ORDER BY 1`.execute(
      t.database.db,
    );
    expect(triggers.map((r) => r.table)).toEqual([...new Set(listed.map((r) => r.table_name))].sort());
  });

  it('refuse a statement with one row that points nowhere, and write none of its rows', async () => {
    for (const reference of await references()) {
      const before = await count(reference.table_name);
      expect(before, reference.table_name).toBeGreaterThan(0);
      const refused = insertCopies(reference.table_name, { [reference.column_name]: MISSING });
      await expect(refused, reference.name).rejects.toMatchObject({
        code: '23503',
        constraint: reference.name,
        detail: `Key (${reference.column_name})=(${MISSING}) is not present in table "${reference.referenced_table}".`,
      });
      expect(await count(reference.table_name)).toBe(before);
    }
  });

  it('accept rows that point at rows that exist, and NULL where the column allows it', async () => {
    const before = await count('journal_entries');
    await insertCopies('journal_entries', { user_id: null });
    expect(await count('journal_entries')).toBe(before + 2);
  });

  it('keep the rows pointed at: no delete, no new id, no truncate, and the pointer is fixed', async () => {
    const db = t.database.db;
    const { rows } = await sql<{ account_id: number; id: number }>`
      SELECT account_id, id FROM postings ORDER BY id LIMIT 1`.execute(db);
    const posting = rows[0] as { account_id: number; id: number };
    await expect(
      sql`DELETE FROM ledger_accounts WHERE id = ${posting.account_id}`.execute(db),
    ).rejects.toMatchObject({
      code: '23503',
      constraint: 'postings_account_id_fkey',
    });
    await expect(
      sql`UPDATE ledger_accounts SET id = DEFAULT WHERE id = ${posting.account_id}`.execute(db),
    ).rejects.toMatchObject({ code: '23503' });
    await expect(sql`TRUNCATE ledger_accounts CASCADE`.execute(db)).rejects.toMatchObject({ code: '23503' });
    await expect(sql`TRUNCATE orders CASCADE`.execute(db)).rejects.toMatchObject({ code: '23503' });
    await expect(
      sql`UPDATE postings SET account_id = account_id WHERE id = ${posting.id}`.execute(db),
    ).resolves.toBeDefined();
    await expect(
      sql`UPDATE postings SET account_id = ${posting.account_id + 1} WHERE id = ${posting.id}`.execute(db),
    ).rejects.toMatchObject({ code: '23503' });
    // A row nothing points at still goes.
    const { rows: spare } = await sql<{ id: number }>`
      INSERT INTO journal_entries (kind, memo) VALUES ('adjustment', 'unused') RETURNING id`.execute(db);
    await sql`DELETE FROM journal_entries WHERE id = ${spare[0]?.id}`.execute(db);
    await expectInvariants(t.database);
  });

  it('are checked again by the audit, which names what points nowhere', async () => {
    const rolledBack = new Error('rolled back');
    const audited = t.database.db.transaction().execute(async (trx) => {
      // A row no statement could write: its check switched off for this transaction only.
      await sql`ALTER TABLE postings DISABLE TRIGGER references_checked`.execute(trx);
      const { rows } = await sql<{ id: number }>`
        INSERT INTO postings (entry_id, account_id, amount)
        SELECT entry_id, ${MISSING}, 1 FROM postings ORDER BY id LIMIT 1 RETURNING id`.execute(trx);
      const results = await new AuditRepository().run(trx);
      expect(results.find((result) => result.invariant.startsWith('7.'))).toEqual({
        invariant: '7. every reference points at a row that exists',
        ok: false,
        violations: [`postings ${rows[0]?.id}: account_id ${MISSING} is not in ledger_accounts`],
      });
      throw rolledBack;
    });
    await expect(audited).rejects.toBe(rolledBack);
    await expectInvariants(t.database);
  });
});

/** Two sessions of their own on the test's database, ended whatever happens. */
async function twoSessions(run: (writer: pg.Client, deleter: pg.Client) => Promise<void>): Promise<void> {
  const url = t.testDatabase.url as string;
  const [writer, deleter] = [
    new pg.Client({ connectionString: url }),
    new pg.Client({ connectionString: url }),
  ];
  await Promise.all([writer.connect(), deleter.connect()]);
  try {
    await run(writer, deleter);
  } finally {
    await Promise.all([writer.end(), deleter.end()]);
  }
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('references between two sessions on PostgreSQL', () => {
  it('make a delete wait for the insert that points at its row, then refuse it', async () => {
    await twoSessions(async (writer, deleter) => {
      const { rows } = await writer.query<{ id: string }>(
        `INSERT INTO journal_entries (kind, memo) VALUES ('adjustment', 'target') RETURNING id`,
      );
      const entry = rows[0]?.id as string;
      await writer.query('BEGIN');
      await writer.query(
        `INSERT INTO postings (entry_id, account_id, amount)
         SELECT $1::bigint, id, 1 FROM ledger_accounts WHERE kind = 'fees' UNION ALL
         SELECT $1::bigint, id, -1 FROM ledger_accounts WHERE kind = 'bonus'`,
        [entry],
      );
      let settled = false;
      // Its outcome is taken at once: the refusal may arrive before the writer's COMMIT has answered.
      const deleting = deleter.query('DELETE FROM journal_entries WHERE id = $1', [entry]).then(
        () => null,
        (error: unknown) => error,
      );
      void deleting.finally(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false); // waiting for the writer's lock on the entry
      await writer.query(
        `UPDATE ledger_accounts SET balance = balance + CASE kind WHEN 'fees' THEN 1 ELSE -1 END
         WHERE kind IN ('fees', 'bonus') AND user_id IS NULL AND option_id IS NULL AND event_id IS NULL`,
      );
      await writer.query('COMMIT');
      expect(await deleting).toMatchObject({ code: '23503', constraint: 'postings_entry_id_fkey' });
    });
  });

  it('make an insert wait for the delete of the row it points at, then refuse it', async () => {
    await twoSessions(async (writer, deleter) => {
      const { rows } = await deleter.query<{ id: string }>(
        `INSERT INTO journal_entries (kind, memo) VALUES ('adjustment', 'doomed') RETURNING id`,
      );
      const entry = rows[0]?.id as string;
      await deleter.query('BEGIN');
      await deleter.query('DELETE FROM journal_entries WHERE id = $1', [entry]);
      // Its outcome is taken at once: the refusal may arrive before the deleter's COMMIT has answered.
      const inserting = writer
        .query(
          `INSERT INTO postings (entry_id, account_id, amount) SELECT $1, id, 1 FROM ledger_accounts WHERE kind = 'fees'`,
          [entry],
        )
        .then(
          () => null,
          (error: unknown) => error,
        );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await deleter.query('COMMIT');
      expect(await inserting).toMatchObject({ code: '23503', constraint: 'postings_entry_id_fkey' });
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  guardTransactions,
  QueryOutsideTransactionError,
  takeTransactionViolations,
} from '../../../src/platform/db/transaction-guard.js';
import { createTestDatabase, type TestDatabase } from '../../support/app.js';

/** The guard every test runs with: a statement through the pool inside a transaction's callback fails at once. */

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

const one = (db: TestDatabase['database']['db']) => db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();

describe('the transaction guard', () => {
  it('refuses a statement through the pool inside a transaction, and the transaction can still finish', async () => {
    const { db } = t.database;
    const result = await db.transaction().execute(async (trx) => {
      await expect(one(db)).rejects.toBeInstanceOf(QueryOutsideTransactionError);
      return one(trx);
    });
    expect(result).toEqual([{ one: 1 }]);
    expect(takeTransactionViolations()).toHaveLength(1);
    expect(await one(db)).toEqual([{ one: 1 }]);
  });

  it('refuses a transaction opened inside another, and marks transactions with an isolation level', async () => {
    const { db } = t.database;
    await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async () => {
        await expect(db.transaction().execute(one)).rejects.toBeInstanceOf(QueryOutsideTransactionError);
        await expect(one(t.database.reads)).rejects.toBeInstanceOf(QueryOutsideTransactionError);
      });
    expect(takeTransactionViolations()).toHaveLength(2);
  });

  it('lets work the callback left running use the pool once the transaction is over', async () => {
    const { db } = t.database;
    let later: Promise<unknown> = Promise.resolve();
    await db.transaction().execute(async () => {
      later = new Promise((resolve) => setTimeout(resolve, 20)).then(() => one(db));
    });
    expect(await later).toEqual([{ one: 1 }]);
    expect(takeTransactionViolations()).toHaveLength(0);
  });

  it('lets the statement through when off (the embedded database would then wait for itself)', async () => {
    if (t.url) return;
    const { db } = t.database;
    guardTransactions(false);
    try {
      const waiting = db.transaction().execute(async () => {
        const outcome = await Promise.race([
          one(db).then(() => 'answered'),
          new Promise((resolve) => setTimeout(() => resolve('waiting'), 300)),
        ]);
        return outcome;
      });
      expect(await waiting).toBe('waiting');
    } finally {
      guardTransactions(true);
    }
  });
});

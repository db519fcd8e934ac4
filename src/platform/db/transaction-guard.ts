import { AsyncLocalStorage } from 'node:async_hooks';
import { Kysely, type KyselyConfig, type PostgresPool, type TransactionBuilder } from 'kysely';
import type { DB } from './schema.js';

/**
 * A statement sent through the pool by code running inside a transaction's callback. On PGlite, one session
 * shared in turns, it waits for the transaction that waits for it: the server freezes. On PostgreSQL it takes a
 * second connection, outside the transaction's locks and snapshot. Either way the callback should have passed its
 * transaction on.
 */
export class QueryOutsideTransactionError extends Error {
  constructor() {
    super(
      'a statement went through the pool while a transaction of the same call path was open: pass the transaction on',
    );
    this.name = 'QueryOutsideTransactionError';
  }
}

interface OpenTransaction {
  open: boolean;
}

const transactions = new AsyncLocalStorage<OpenTransaction>();
let guarding = false;
const violations: QueryOutsideTransactionError[] = [];

/**
 * Makes a statement through the pool from inside a transaction's callback fail at once (tests switch it on): the
 * mistake that freezes the embedded database shows up as an error on either database, where it was made.
 */
export function guardTransactions(on: boolean): void {
  guarding = on;
}

/** The violations met since the last call (caught or not by the code that met them). */
export function takeTransactionViolations(): QueryOutsideTransactionError[] {
  return violations.splice(0);
}

function checkOutsideTransaction(): void {
  if (!guarding || !transactions.getStore()?.open) return;
  const error = new QueryOutsideTransactionError();
  violations.push(error);
  throw error;
}

/**
 * Marks the callback's call path while the guard is on. Off (in production) nothing is marked: an
 * AsyncLocalStorage once entered makes Node track every promise the process creates, a cost on every request.
 */
async function insideTransaction<T>(callback: () => Promise<T>): Promise<T> {
  if (!guarding) return callback();
  const state: OpenTransaction = { open: true };
  return transactions.run(state, async () => {
    try {
      return await callback();
    } finally {
      // Work the callback left running after it returned no longer holds the transaction.
      state.open = false;
    }
  });
}

function marked(builder: TransactionBuilder<DB>): TransactionBuilder<DB> {
  return Object.assign(Object.create(builder) as TransactionBuilder<DB>, {
    execute: <T>(callback: Parameters<TransactionBuilder<DB>['execute']>[0]) =>
      builder.execute((trx) => insideTransaction(() => callback(trx) as Promise<T>)),
    setIsolationLevel: (level: Parameters<TransactionBuilder<DB>['setIsolationLevel']>[0]) =>
      marked(builder.setIsolationLevel(level)),
    setAccessMode: (mode: Parameters<TransactionBuilder<DB>['setAccessMode']>[0]) =>
      marked(builder.setAccessMode(mode)),
  });
}

/** Kysely whose transactions mark the call path of their callback, for `guardedPool` to check. */
export class TransactionMarkingKysely extends Kysely<DB> {
  constructor(config: KyselyConfig) {
    super(config);
  }

  override transaction(): TransactionBuilder<DB> {
    return marked(super.transaction());
  }
}

/** A pool that checks, when the guard is on, that no transaction of the call path is open before it connects. */
export function guardedPool(pool: PostgresPool): PostgresPool {
  return {
    async connect() {
      checkOutsideTransaction();
      return pool.connect();
    },
    end: () => pool.end(),
  };
}

/**
 * Runs `fn` outside any transaction's call path: for work a transaction sets going that is not its own (the order
 * pipeline's next transaction, started the moment this one holds its locks).
 */
export function outsideTransactions<T>(fn: () => T): T {
  return guarding ? transactions.exit(fn) : fn();
}

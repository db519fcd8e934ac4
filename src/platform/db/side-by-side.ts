import { type DatabaseConnection, type KyselyProps, Transaction } from 'kysely';
import type { DB } from './schema.js';
import type { Tx } from './types.js';

/**
 * Runs `work` on a view of the transaction whose statements go to the connection the moment they are made. Kysely
 * runs a transaction's statements one at a time, each sent only once the one before it has answered and this
 * thread has come back to it; here, statements made side by side (none awaiting another) are written together,
 * in the order made, and PostgreSQL runs them one after another without waiting for us in between (node-postgres's
 * pipeline mode; PGlite runs them in the order made too). A statement that awaits another's answer still goes only
 * once it has it, so the transaction means exactly what it did.
 *
 * The view takes the connection for as long as `work` runs: the transaction's own statements wait for it to end.
 */
export async function pipelining<T>(trx: Tx, work: (trx: Tx) => Promise<T>): Promise<T> {
  const executor = trx.getExecutor();
  return executor.provideConnection((connection: DatabaseConnection) => {
    const shared = executor.withConnectionProvider({
      provideConnection: (consumer) => consumer(connection),
    });
    // A transaction's view is used for statements only: what the other properties serve (beginning transactions,
    // introspection) a transaction refuses anyway.
    const props = { config: {}, driver: {}, dialect: {}, executor: shared } as unknown as KyselyProps;
    return work(new Transaction<DB>(props));
  });
}

/**
 * Statements of one transaction sent side by side (made on a `pipelining` view, they go to PostgreSQL together).
 * Waits for every one of them, so that none is still running when the transaction ends, then throws the first
 * failure in the order given (a statement after a failed one fails only because the transaction is aborted).
 */
export async function sideBySide<T extends readonly unknown[]>(
  work: {
    [K in keyof T]: Promise<T[K]>;
  },
): Promise<T> {
  const settled = await Promise.allSettled(work);
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

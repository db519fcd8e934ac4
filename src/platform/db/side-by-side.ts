/**
 * Statements of one transaction sent side by side. A transaction's connection runs one statement at a time, so
 * they still run one after another, in the order given; but each goes the moment the one before it answers, in
 * the same turn of the event loop, instead of waiting for its caller's turn behind whatever else this thread is
 * doing (under load, a few milliseconds a statement). Waits for every one of them, so that none is still running
 * when the transaction ends, then throws the first failure in the order given (a statement after a failed one
 * fails only because the transaction is aborted).
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

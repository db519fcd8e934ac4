import type { Metrics } from '../../../platform/metrics.js';
import { unavailableError } from './cycle.js';
import type { MarketQueue, MarketQueues, Pending } from './queues.js';

/** How often a request goes again after a deadlock ended its transaction, before it is run on its own. */
export const DEADLOCK_RETRIES = 3;

export interface WarnLog {
  warn(details: object, message: string): void;
}

/** A deadlock ended the transaction: nothing was written, and its requests go again, first in their queues. */
export function requeue(
  queues: MarketQueues,
  chosen: MarketQueue[],
  taken: Pending[][],
  metrics: Metrics | null,
): void {
  metrics?.batchFailures.inc();
  const alone: Pending[] = [];
  chosen.forEach((queue, q) => {
    const list = taken[q] ?? [];
    for (const entry of list) entry.deadlocks += 1;
    // Into the market's queue now (the one chosen may have been replaced while the transaction ran).
    queues.of(queue.ref).requests.unshift(...list.filter((entry) => entry.deadlocks <= DEADLOCK_RETRIES));
    alone.push(...list.filter((entry) => entry.deadlocks > DEADLOCK_RETRIES));
  });
  for (const entry of alone) entry.resolve({ alone: true });
}

/**
 * When the database is out of reach or would not wait (a lock, a statement past its timeout), the requests are
 * refused with 503, nothing of them written; after any other failure they are run one by one.
 */
export function refuse(
  chosen: MarketQueue[],
  entries: Pending[],
  error: unknown,
  observe: { log: WarnLog; metrics: Metrics | null },
): void {
  const { log, metrics } = observe;
  const unavailable = unavailableError(error);
  if (unavailable) {
    const reason = unavailable.code === 'OPTION_BUSY' ? 'option_busy' : 'database';
    metrics?.ordersRefused.inc({ reason }, entries.length);
    for (const entry of entries) entry.reject(unavailable);
    return;
  }
  metrics?.batchFailures.inc();
  log.warn(
    { err: error, markets: chosen.map((queue) => queue.key), requests: entries.length },
    'an order batch failed; its requests are placed one by one',
  );
  for (const entry of entries) entry.resolve({ alone: true });
}

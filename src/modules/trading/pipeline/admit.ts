import type { Tx } from '../../../platform/db/types.js';
import type { BatchIdempotency } from '../idempotency.js';
import type { BookOutcome, BookRequest } from '../types.js';
import type { MarketWork } from './work.js';

/**
 * What the requests already have as their outcome before any decision: a request for an option that trades in
 * another market than the one it queued for is sent back to find it; then idempotency (replays, keys used twice),
 * over every market of the transaction at once.
 */
export async function admit(trx: Tx, idempotency: BatchIdempotency, works: MarketWork[]): Promise<void> {
  for (const { market, requests, outcomes } of works) {
    const misrouted = market.ref.kind === 'option' ? market.exclusive : !market.exclusive;
    requests.forEach((request, index) => {
      if (misrouted && request.type !== 'convert') outcomes[index] = { reroute: true };
    });
  }
  const requests: BookRequest[] = works.flatMap((work) => work.requests);
  const outcomes: (BookOutcome | undefined)[] = works.flatMap((work) => work.outcomes);
  await idempotency.admit(trx, requests, outcomes);
  let at = 0;
  for (const work of works)
    for (let index = 0; index < work.requests.length; index++) work.outcomes[index] = outcomes[at++];
}

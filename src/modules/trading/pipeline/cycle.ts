import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.js';
import { pipelining } from '../../../platform/db/side-by-side.js';
import { databaseCondition, isLockTimeout, type Tx } from '../../../platform/db/types.js';
import {
  databaseConditionError,
  NotFoundError,
  type ServiceUnavailableError,
} from '../../../platform/errors.js';
import type { Metrics } from '../../../platform/metrics.js';
import type { BookCache } from '../books.js';
import { OptionBusyError } from '../errors.js';
import { type LockedMarket, type MarketRef, marketKey, type TradingRepository } from '../repository.js';
import type { BookOutcome, BookRequest, RequestHold } from '../types.js';
import { StepClock } from './step-clock.js';

/** What a transaction did with the requests of its markets: their outcomes, and the holds it spent. */
export interface CycleResult {
  outcomes: BookOutcome[][];
  spent: RequestHold[];
}

/** Runs the locked markets' requests in a transaction: the rest of an order's life after its lock. */
export type RunLocked = (
  trx: Tx,
  markets: LockedMarket[],
  requests: BookRequest[][],
  clock: StepClock,
  writing?: () => void,
) => Promise<CycleResult>;

/** A transaction over markets, for the requests waiting in their queues. */
export interface Cycle {
  refs: MarketRef[];
  /** Takes each market's requests once the locks are held (those that arrived while it waited ride too). */
  take: () => BookRequest[][];
  /** What to wait for once the locks are held, before taking the requests (the transaction before, here). */
  previous?: Promise<void>;
  /** Called once the writes are sent (answers held for them may go). */
  writing?: () => void;
}

/**
 * One transaction over markets: their locks taken (one statement, in ascending option id), the transaction before
 * it on this instance waited for, their requests taken and run, and the commit; then the holds it spent are marked
 * so. Its statements go to the database side by side wherever none needs another's answer (`pipelining`).
 */
export async function runCycle(
  parts: { db: Kysely<DB>; trading: TradingRepository; books: BookCache; metrics: Metrics | null },
  cycle: Cycle,
  run: RunLocked,
): Promise<BookOutcome[][]> {
  const used: { trx?: Tx } = {};
  const clock = new StepClock(parts.metrics);
  const result = await parts.db.transaction().execute((transaction) =>
    pipelining(transaction, async (trx): Promise<CycleResult> => {
      used.trx = trx;
      const markets = await parts.trading.lockMarkets(trx, cycle.refs);
      if (cycle.previous) await cycle.previous;
      const requests = cycle.take();
      clock.lap('lock', {
        requests: requests.reduce((sum, list) => sum + list.length, 0),
        markets: markets.length,
      });
      const found = new Map(markets.map((market) => [marketKey(market.ref), market]));
      const at = cycle.refs.map((ref) => found.get(marketKey(ref)));
      const locked = at.flatMap((market, index) =>
        market ? [{ market, requests: requests[index] ?? [] }] : [],
      );
      const done = await run(
        trx,
        locked.map((l) => l.market),
        locked.map((l) => l.requests),
        clock,
        cycle.writing,
      );
      let next = 0;
      return {
        outcomes: at.map((market, index) =>
          market ? (done.outcomes[next++] ?? []) : (requests[index] ?? []).map(() => notFound()),
        ),
        spent: done.spent,
      };
    }),
  );
  clock.lap('commit');
  if (used.trx) parts.books.committedBy(used.trx);
  for (const hold of result.spent) hold.spent = true;
  return result.outcomes;
}

function notFound(): BookOutcome {
  return { error: new NotFoundError('Option') };
}

/** The 503 a request gets when the database cannot serve it or would not wait; null for any other failure. */
export function unavailableError(error: unknown): ServiceUnavailableError | null {
  if (isLockTimeout(error)) return new OptionBusyError();
  const condition = databaseCondition(error);
  if (condition) return databaseConditionError(condition);
  return null;
}

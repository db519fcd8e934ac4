import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.js';
import { isRetryable, isUniqueViolation, type Tx } from '../../../platform/db/types.js';
import { NotFoundError } from '../../../platform/errors.js';
import type { Metrics } from '../../../platform/metrics.js';
import type { LedgerRepository } from '../../ledger/repository.js';
import type { BookCache } from '../books.js';
import { IdempotencyMismatchError, RequestDeadlineError } from '../errors.js';
import { BatchIdempotency } from '../idempotency.js';
import type { IdempotencyRepository } from '../idempotency-repository.js';
import { KeyUsageRepository } from '../key-usage-repository.js';
import type { LockedMarket, MarketRef, TradingRepository } from '../repository.js';
import type { BookOutcome, BookRequest, RequestHold, TradingListeners, TradingSettings } from '../types.js';
import { admit } from './admit.js';
import { Announcer } from './announce.js';
import { Answers } from './answer.js';
import { type Cycle, type CycleResult, runCycle, unavailableError } from './cycle.js';
import { type DecideParts, decideAndWrite } from './decide.js';
import { DEADLOCK_RETRIES, type WarnLog } from './failures.js';
import { holdTakers } from './hold.js';
import type { StepClock } from './step-clock.js';
import type { MarketWork } from './work.js';
import { MarketWriter } from './writer.js';

export type { WarnLog };

/** The most requests one transaction of the pipeline takes of one market; more wait for the next. */
export const PIPELINE_BATCH_LIMIT = 256;

/** The most requests one transaction of the pipeline takes in all markets; more wait for the next. */
export const CYCLE_REQUEST_LIMIT = 1024;

export interface PipelineSettings extends TradingSettings {
  /** The most requests one transaction takes of one market; more wait for the next. */
  maxBatchOrders: number;
  /** The most requests one transaction takes in all. */
  maxCycleRequests: number;
}

/**
 * The life of an order, and of every other change to a market's books (a cancel, an expiry, a market close, a
 * conversion). A market is an independent option, or all the options of an exclusive event (their house maker and
 * conversion pool are shared); its lock is its options' row locks. Before it queues, what an order may spend was set
 * aside out of its user's cash (collateral.ts, a step of its own, so that no market waits for a user's cash). Then,
 * read top to bottom:
 *
 *   queue   requests wait in their market's queue (queues.ts); a transaction takes the waiting requests of many
 *           markets at once (writer.ts), and a failed one's requests go again, alone or refused (failures.ts)
 *   lock    it takes their markets' locks, in ascending option id (cycle.ts)
 *   admit   replays and reroutes answer some requests before any decision (admit.ts)
 *   hold    the holds the takers brought are spent, sellers' positions locked, ids taken (hold.ts)
 *   decide  each market is decided on its books in memory (`decide` in src/exchange/decision.ts), in turn; then the
 *           decisions are written (write.ts), answered (answer.ts) and announced to the listeners (announce.ts),
 *           side by side, in statements shared by every market, with what they gave back to users (returns)
 *   commit  the transaction commits, and each request gets the answer it would have got alone
 */
export class OrderPipeline {
  private readonly writer: MarketWriter;
  private readonly idempotency: BatchIdempotency;
  private readonly decideParts: DecideParts;
  private readonly trading: TradingRepository;
  private readonly keyUsage = new KeyUsageRepository();

  constructor(
    private readonly db: Kysely<DB>,
    repositories: { trading: TradingRepository; keys: IdempotencyRepository; ledger: LedgerRepository },
    private readonly books: BookCache,
    listeners: TradingListeners,
    private readonly settings: PipelineSettings,
    log: WarnLog,
    private readonly metrics: Metrics | null,
  ) {
    const { trading, keys, ledger } = repositories;
    this.trading = trading;
    this.idempotency = new BatchIdempotency(keys);
    this.decideParts = {
      trading,
      ledger,
      books,
      answers: new Answers(trading, this.idempotency),
      announcer: new Announcer(listeners),
      takerFeeBps: settings.takerFeeBps,
    };
    this.writer = new MarketWriter(settings, (cycle) => this.transact(cycle), { log, metrics });
  }

  /** Queues a request for its market's next transaction; resolves when that has committed. */
  submit(ref: MarketRef, request: BookRequest): Promise<BookOutcome> {
    return this.writer.submit(ref, request);
  }

  /** Takes no more requests; resolves once every request taken has its answer (a graceful stop). */
  drain(): Promise<void> {
    return this.writer.drain();
  }

  /** Runs a request on its own, in a transaction of its own (a request a transaction handed back). */
  async alone(ref: MarketRef, request: BookRequest): Promise<BookOutcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        const outcomes = await this.transact({ refs: [ref], take: () => [[request]] });
        return outcomes[0]?.[0] ?? { alone: true };
      } catch (error) {
        // A deadlock with a writer outside the lock order: nothing was written; go again.
        if (isRetryable(error) && attempt <= DEADLOCK_RETRIES) continue;
        // Another transaction took the same clientOrderId between our check and our write.
        if (isUniqueViolation(error, 'orders_client_order_id_idx'))
          return { error: new IdempotencyMismatchError() };
        throw unavailableError(error) ?? error;
      }
    }
  }

  /** Runs requests in a transaction the caller holds (a market close, a protective sell under another order's lock). */
  async runInTransaction(trx: Tx, ref: MarketRef, requests: BookRequest[]): Promise<BookOutcome[]> {
    const [market] = await this.trading.lockMarkets(trx, [ref]);
    if (!market) return requests.map(() => ({ error: new NotFoundError('Option') }));
    const { outcomes } = await this.run(trx, [market], [requests]);
    this.books.committedBy(trx);
    return outcomes[0] as BookOutcome[];
  }

  private transact(cycle: Cycle): Promise<BookOutcome[][]> {
    const parts = { db: this.db, trading: this.trading, books: this.books, metrics: this.metrics };
    return runCycle(parts, cycle, (trx, markets, requests, clock, writing) =>
      this.run(trx, markets, requests, clock, writing),
    );
  }

  /** The life of the transaction's requests under their markets' locks: admit → hold → decide → write, answer, announce. */
  private async run(
    trx: Tx,
    markets: LockedMarket[],
    requests: BookRequest[][],
    clock?: StepClock,
    writing?: () => void,
  ): Promise<CycleResult> {
    const works: MarketWork[] = markets.map((market, index) => {
      const own = requests[index] ?? [];
      return { market, requests: own, outcomes: own.map(() => undefined) };
    });
    await admit(trx, this.idempotency, works);
    const expired = () => ({ error: new RequestDeadlineError(this.settings.requestDeadlineMs) });
    const held = await holdTakers(trx, { trading: this.trading, keyUsage: this.keyUsage }, works, expired);
    clock?.lap('hold');
    await decideAndWrite(trx, this.decideParts, held, clock, writing);
    const spent: RequestHold[] = held.flatMap(({ work, indexes }) =>
      indexes.flatMap((index) => {
        const request = work.requests[index] as BookRequest;
        return 'hold' in request && request.hold ? [request.hold] : [];
      }),
    );
    return { outcomes: works.map((work) => work.outcomes as BookOutcome[]), spent };
  }
}

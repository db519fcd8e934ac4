import { outsideTransactions } from '../../../platform/db/transaction-guard.js';
import { isLockTimeout, isRetryable } from '../../../platform/db/types.js';
import { ShuttingDownError } from '../../../platform/errors.js';
import type { Metrics } from '../../../platform/metrics.js';
import type { MarketRef } from '../repository.js';
import type { BookOutcome, BookRequest } from '../types.js';
import type { Cycle } from './cycle.js';
import { refuse, requeue, type WarnLog } from './failures.js';
import { type MarketQueue, MarketQueues, type Pending, type QueueSettings } from './queues.js';

/** The longest a committed transaction's answers wait for the next transaction to send its writes. */
const ANSWER_HOLD_MS = 10;

export interface WriterSettings extends QueueSettings {
  /** Transactions this instance runs at once (2 on PostgreSQL: one is written while the next waits for its locks). */
  transactionsPerMarket: 1 | 2;
  /** The most requests one transaction takes in all. */
  maxCycleRequests: number;
}

/**
 * The order pipeline's writer: requests queue per market, and transactions take the waiting requests of many
 * markets at once, so that the cost of a commit is shared by the orders of every market that has some, not only of
 * one. Each market is still decided under its own lock, its requests in their order, each answered as if alone.
 * While one transaction is being written the next waits for its locks, and takes what arrived meanwhile.
 */
export class MarketWriter {
  private readonly queues: MarketQueues;
  private inFlight = 0;
  /** Whether a transaction has started and not taken its requests yet (there is at most one). */
  private waiting = false;
  /** The end of the last transaction started (it never rejects), and its markets. */
  private last: { ended: Promise<void>; markets: Set<string> } = {
    ended: Promise.resolve(),
    markets: new Set(),
  };
  /** Committed transactions' answers, held until the next transaction has sent its writes. */
  private answers: (() => void)[] = [];
  private closing = false;
  private idle: (() => void)[] = [];
  /** Whether a look for the next transaction is due on the next turn of the event loop. */
  private scheduled = false;

  constructor(
    private readonly settings: WriterSettings,
    private readonly transact: (cycle: Cycle) => Promise<BookOutcome[][]>,
    private readonly observe: { log: WarnLog; metrics: Metrics | null },
  ) {
    this.queues = new MarketQueues(settings, observe.metrics);
  }

  /**
   * Queues a request for its market's next transaction; resolves when that has committed. A full queue refuses it
   * at once, so a stalled market holds a bounded number of requests and never the memory of unbounded ones.
   */
  submit(ref: MarketRef, request: BookRequest): Promise<BookOutcome> {
    return new Promise((resolve, reject) => {
      if (this.closing) return reject(new ShuttingDownError());
      if (!this.queues.add(ref, { request, resolve, reject })) return;
      // On the next turn of the event loop, so that every request sent together rides the first transaction.
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.schedule();
      });
    });
  }

  /** Takes no more requests, and resolves once every one taken has its answer. */
  drain(): Promise<void> {
    this.closing = true;
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /**
   * Starts the next transaction when requests wait and none is waiting for its locks yet. It takes every market that
   * has requests (or one market alone, see MarketQueue.solo), closes when it holds their locks, so that the requests
   * that arrived while it waited join it, and as soon as it holds them the next transaction may start.
   */
  private schedule(): void {
    if (this.waiting || this.inFlight >= this.settings.transactionsPerMarket) return;
    const ready = this.queues.ready();
    if (ready.length === 0) return;
    const chosen = this.choose(ready);
    const markets = new Set(chosen.map((queue) => queue.key));
    const shared = [...markets].some((key) => this.last.markets.has(key));
    const previous = shared ? this.last.ended : undefined;
    this.waiting = true;
    this.inFlight += 1;
    const ended = this.cycle(chosen, previous).finally(() => {
      this.inFlight -= 1;
      // Answers held for a transaction that has since ended go now (with one still under way, at its writes).
      if (this.inFlight === 0) this.answerHeld();
      this.queues.dropEmpty(chosen);
      this.schedule();
      if (this.isIdle()) for (const resolve of this.idle.splice(0)) resolve();
    });
    this.last = { ended, markets };
  }

  /** The markets the next transaction takes: a market that must go alone, or all the others, within the bound. */
  private choose(ready: MarketQueue[]): MarketQueue[] {
    const solo = ready.find((queue) => queue.solo);
    if (solo) return [solo];
    const chosen: MarketQueue[] = [];
    let requests = 0;
    for (const queue of ready) {
      if (chosen.length > 0 && requests >= this.settings.maxCycleRequests) break;
      chosen.push(queue);
      requests += Math.min(queue.requests.length, this.settings.maxBatchOrders);
    }
    return chosen;
  }

  /** One transaction over the chosen markets; every request taken gets its outcome, never a rejection. */
  private async cycle(chosen: MarketQueue[], previous: Promise<void> | undefined): Promise<void> {
    let taken: Pending[][] | null = null;
    let previousEnded = previous === undefined;
    void previous?.then(() => {
      previousEnded = true;
    });
    const take = () => {
      taken = chosen.map((queue) => this.queues.take(queue));
      this.waiting = false;
      // The next transaction is not this one's work: it starts outside this one's call path.
      outsideTransactions(() => this.schedule());
      return taken.map((list) => list.map((entry) => entry.request));
    };
    try {
      const outcomes = await this.transact({
        refs: chosen.map((queue) => queue.ref),
        take,
        ...(previous ? { previous } : {}),
        writing: () => setImmediate(() => this.answerHeld()),
      });
      for (const queue of chosen) queue.solo = false;
      const answered = taken as Pending[][] | null;
      this.answerWhileWriting(() => {
        for (const [q, list] of (answered ?? []).entries())
          for (const [index, entry] of list.entries()) entry.resolve(outcomes[q]?.[index] ?? { alone: true });
      });
    } catch (error) {
      this.failed(chosen, taken, error, previousEnded);
    }
  }

  /** A transaction failed: its requests go again, are run alone, or are refused; never silently. */
  private failed(
    chosen: MarketQueue[],
    taken: Pending[][] | null,
    error: unknown,
    previousEnded: boolean,
  ): void {
    if (taken !== null) {
      if (isRetryable(error)) requeue(this.queues, chosen, taken, this.observe.metrics);
      else refuse(chosen, taken.flat(), error, this.observe);
      return;
    }
    this.waiting = false;
    if (isLockTimeout(error)) {
      // It waited past lock_timeout behind this instance's own transaction before it (a slow write): the requests
      // stay queued for the next transaction rather than being refused for our own slowness.
      if (!previousEnded) return;
      // One of several markets is locked elsewhere: each goes alone, and only the busy one's requests wait on it.
      if (chosen.length > 1) {
        for (const queue of chosen) queue.solo = true;
        return;
      }
    }
    refuse(
      chosen,
      chosen.flatMap((queue) => queue.requests.splice(0, this.settings.maxBatchOrders)),
      error,
      this.observe,
    );
  }

  /**
   * Answers a committed transaction. When the next transaction is already under way (it may hold the locks from the
   * moment this one committed), the answers wait until it has sent its writes: building and sending them then
   * overlaps PostgreSQL's work on those writes, instead of delaying the next transaction's first statements on this
   * one thread. They wait at most `ANSWER_HOLD_MS`, and never past that transaction's end.
   */
  private answerWhileWriting(answer: () => void): void {
    if (this.inFlight < 2) {
      answer();
      return;
    }
    this.answers.push(answer);
    if (this.answers.length === 1) setTimeout(() => this.answerHeld(), ANSWER_HOLD_MS);
  }

  private answerHeld(): void {
    for (const answer of this.answers.splice(0)) answer();
  }

  private isIdle(): boolean {
    return this.inFlight === 0 && this.queues.empty();
  }
}

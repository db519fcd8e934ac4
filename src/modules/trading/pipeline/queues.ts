import type { Metrics } from '../../../platform/metrics.js';
import { OrderQueueFullError, RequestDeadlineError } from '../errors.js';
import { type MarketRef, marketKey } from '../repository.js';
import type { BookOutcome, BookRequest } from '../types.js';

/** A request waiting on this instance for a transaction to take it, and then for its answer. */
export interface Pending {
  request: BookRequest;
  resolve: (outcome: BookOutcome) => void;
  reject: (error: unknown) => void;
  /** Transactions it rode that PostgreSQL ended to break a deadlock. */
  deadlocks: number;
  /** When it is answered 503 if no transaction has taken it yet (ms since the epoch). */
  deadline: number;
}

/** A market's requests waiting on this instance. */
export interface MarketQueue {
  ref: MarketRef;
  key: string;
  requests: Pending[];
  /**
   * Whether its next transaction is its own: after a transaction over several markets waited past lock_timeout
   * (one of them was locked elsewhere), each of them goes alone until it has gone through, so that a busy market
   * holds up only its own requests.
   */
  solo: boolean;
}

export interface QueueSettings {
  /** The most requests waiting in one market's queue on this instance; past it, 503 at once. */
  maxQueuedOrdersPerOption: number;
  /** The most requests one transaction takes of one market; more wait for the next. */
  maxBatchOrders: number;
  /** How long a request may wait for a transaction to take it (REQUEST_DEADLINE_MS). */
  requestDeadlineMs: number;
}

/** How often waiting requests are looked at for their deadline. */
const DEADLINE_SWEEP_MS = 50;

/**
 * The markets' queues on this instance (MarketWriter's bookkeeping): each is bounded, and a request that waits
 * past its deadline without a transaction taking it is answered 503.
 */
export class MarketQueues {
  private readonly byMarket = new Map<string, MarketQueue>();
  private sweeper: NodeJS.Timeout | null = null;

  constructor(
    private readonly settings: QueueSettings,
    private readonly metrics: Metrics | null,
  ) {}

  /**
   * Queues a request in its market's queue, unless the queue is full: then it is refused at once, so that a
   * stalled market holds a bounded number of requests. Whether it was queued.
   */
  add(ref: MarketRef, entry: Omit<Pending, 'deadlocks' | 'deadline'>): boolean {
    const queue = this.of(ref);
    if (queue.requests.length >= this.settings.maxQueuedOrdersPerOption) {
      this.metrics?.ordersRefused.inc({ reason: 'queue_full' });
      entry.reject(new OrderQueueFullError(this.settings.maxQueuedOrdersPerOption));
      return false;
    }
    const deadline = Date.now() + this.settings.requestDeadlineMs;
    queue.requests.push({ ...entry, deadlocks: 0, deadline });
    this.sweepDeadlines();
    return true;
  }

  /**
   * The market's queue on this instance. A queue with no requests left is dropped; one that a transaction still
   * holds may already have been replaced by a new one for the same market, which then is the queue.
   */
  of(ref: MarketRef): MarketQueue {
    const key = marketKey(ref);
    let queue = this.byMarket.get(key);
    if (!queue) {
      queue = { ref, key, requests: [], solo: false };
      this.byMarket.set(key, queue);
    }
    return queue;
  }

  /** The queues with requests waiting. */
  ready(): MarketQueue[] {
    return [...this.byMarket.values()].filter((queue) => queue.requests.length > 0);
  }

  /** Whether no request waits in any queue. */
  empty(): boolean {
    return [...this.byMarket.values()].every((queue) => queue.requests.length === 0);
  }

  /** Drops the queues of a transaction that ended which have no requests left, and are still their market's. */
  dropEmpty(chosen: MarketQueue[]): void {
    for (const queue of chosen)
      if (queue.requests.length === 0 && this.byMarket.get(queue.key) === queue)
        this.byMarket.delete(queue.key);
  }

  /** A market's requests for a transaction that holds its lock; those past their deadline are answered 503. */
  take(queue: MarketQueue): Pending[] {
    const now = Date.now();
    const taken: Pending[] = [];
    while (taken.length < this.settings.maxBatchOrders && queue.requests.length > 0) {
      const entry = queue.requests.shift() as Pending;
      if (entry.deadline < now) this.expire(entry);
      else taken.push(entry);
    }
    return taken;
  }

  private expire(entry: Pending): void {
    this.metrics?.ordersRefused.inc({ reason: 'deadline' });
    entry.reject(new RequestDeadlineError(this.settings.requestDeadlineMs));
  }

  /** Answers waiting requests past their deadline, every DEADLINE_SWEEP_MS while any wait. */
  private sweepDeadlines(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = Date.now();
      let waiting = 0;
      for (const queue of this.byMarket.values()) {
        const late = queue.requests.filter((entry) => entry.deadline < now);
        if (late.length > 0) queue.requests = queue.requests.filter((entry) => entry.deadline >= now);
        for (const entry of late) this.expire(entry);
        waiting += queue.requests.length;
      }
      if (waiting === 0 && this.sweeper) {
        clearInterval(this.sweeper);
        this.sweeper = null;
      }
    }, DEADLINE_SWEEP_MS);
    this.sweeper.unref();
  }
}

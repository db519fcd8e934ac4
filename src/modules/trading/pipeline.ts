import type { Kysely } from 'kysely';
import {
  applyPositionChanges,
  type BookState,
  type Decision,
  decide,
  type Holdings,
  type Instruction,
  type MarketState,
  type NewOrder,
  type PlacedVerdict,
  type Refusal,
  type Verdict,
} from '../../exchange/decision.js';
import { positionKey } from '../../exchange/execution.js';
import type { OrderState } from '../../exchange/orders.js';
import { EMPTY_POSITION, type PositionState } from '../../exchange/positions.js';
import type { DB } from '../../platform/db/schema.js';
import { pipelining, sideBySide } from '../../platform/db/side-by-side.js';
import {
  databaseCondition,
  isLockTimeout,
  isRetryable,
  isUniqueViolation,
  type Tx,
} from '../../platform/db/types.js';
import {
  databaseConditionError,
  InsufficientFundsError,
  NotFoundError,
  type ServiceUnavailableError,
  ValidationError,
} from '../../platform/errors.js';
import type { Metrics } from '../../platform/metrics.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { BookCache } from './books.js';
import {
  FillOrKillError,
  IdempotencyMismatchError,
  InsufficientSharesError,
  MarketClosedError,
  NoLiquidityError,
  OptionBusyError,
  OrderNotOpenError,
  OrderQueueFullError,
  PostOnlyWouldTakeError,
} from './errors.js';
import { BatchIdempotency } from './idempotency.js';
import {
  type LockedMarket,
  type MarketRef,
  marketKey,
  type OrderRow,
  type TradeRow,
  type TradingRepository,
} from './repository.js';
import { houseOf, orderRowOf, positionMap, positionStateOf } from './rows.js';
import type {
  BookOutcome,
  BookRequest,
  ConversionCommitted,
  EndReason,
  OrderCommitted,
  PlacedScope,
  TradingListeners,
  TradingSettings,
} from './types.js';
import { serialisePlaced, toConversionView, toOrderView } from './views.js';

type PlaceRequest = Extract<BookRequest, { type: 'place' }>;
type ConvertRequest = Extract<BookRequest, { type: 'convert' }>;
type AmendBookRequest = Extract<BookRequest, { type: 'amend' }>;

interface Pending {
  request: BookRequest;
  resolve: (outcome: BookOutcome) => void;
  reject: (error: unknown) => void;
  /** Batches it rode that PostgreSQL ended to break a deadlock. */
  deadlocks: number;
}

/** How often a request goes again after a deadlock ended its transaction, before it is run on its own. */
const DEADLOCK_RETRIES = 3;

/** A market's queue on this instance, and its transactions in flight. */
interface MarketQueue {
  requests: Pending[];
  /** Whether a transaction has started and does not hold the market's lock yet (there is at most one). */
  waiting: boolean;
  inFlight: number;
  /** The end of the last transaction started (it never rejects). */
  last: Promise<void>;
  /** Committed batches' answers, held until the next transaction has sent its writes (see `answerWhileWriting`). */
  answers: (() => void)[];
}

/** The longest a committed batch's answers wait for the next transaction to send its writes. */
const ANSWER_HOLD_MS = 10;

/** What a decision's writes need besides the decision, read first. */
interface ReadAhead {
  /** The positions of holders the decision touched that were not locked yet. */
  positions: Map<string, PositionState>;
  fillIds: number[];
  tradeIds: number[];
  /** What each placed-orders listener's reader read (undefined: it has none, or nothing to read). */
  reads: unknown[];
}

/** What a decision's writes write: each option's book version after them, and the rows made with their ids. */
interface Written {
  bookVersions: Map<number, number>;
  trades: TradeRow[];
  fillIds: number[];
  /** What each placed-orders listener's reader read ahead (undefined: it has none, or nothing to read). */
  reads: unknown[];
}

export interface PipelineSettings extends TradingSettings {
  /** The most requests one batch takes; more wait for the next batch. */
  maxBatchOrders: number;
}

export interface WarnLog {
  warn(details: object, message: string): void;
}

/**
 * The life of an order, and of every other change to a market's books (a cancel, an expiry, a market close, a
 * conversion): under the market's lock, load → decide → write → answer → announce, in one transaction. A market is
 * an independent option, or all the options of an exclusive event (their house maker and conversion pool are
 * shared); the lock is its options' row locks, taken in id order. The decision is the exchange's (`decide` in
 * src/exchange/decision.ts); everything here is reading, writing and telling.
 *
 * Requests sent over the API queue per market: while one batch of a market is being written, the requests that
 * arrive wait and then go together as the next batch, with a constant number of statements however many it holds.
 * Each gets the answer it would have got alone. A batch that fails for any reason but the database being out of
 * reach is logged, counted, and its requests are run again one by one.
 */
export class OrderPipeline {
  private readonly queues = new Map<string, MarketQueue>();
  private readonly idempotency: BatchIdempotency;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly trading: TradingRepository,
    private readonly ledger: LedgerRepository,
    private readonly books: BookCache,
    private readonly listeners: TradingListeners,
    private readonly settings: PipelineSettings,
    private readonly log: WarnLog,
    private readonly metrics: Metrics | null,
  ) {
    this.idempotency = new BatchIdempotency(trading);
  }

  /**
   * Queues a request for its market's next batch; resolves when that batch has committed. A full queue refuses it
   * at once, so a stalled market holds a bounded number of requests and never the memory of unbounded ones.
   */
  submit(ref: MarketRef, request: BookRequest): Promise<BookOutcome> {
    return new Promise((resolve, reject) => {
      const key = marketKey(ref);
      const queue = this.queues.get(key);
      if (queue && queue.requests.length >= this.settings.maxQueuedOrdersPerOption) {
        this.metrics?.ordersRefused.inc({ reason: 'queue_full' });
        reject(new OrderQueueFullError(this.settings.maxQueuedOrdersPerOption));
        return;
      }
      if (!queue) {
        const idle: MarketQueue = {
          requests: [],
          waiting: false,
          inFlight: 0,
          last: Promise.resolve(),
          answers: [],
        };
        this.queues.set(key, idle);
        idle.requests.push({ request, resolve, reject, deadlocks: 0 });
        // On the next turn of the event loop, so that every request sent together rides the first batch.
        setImmediate(() => this.next(key, ref, idle));
        return;
      }
      queue.requests.push({ request, resolve, reject, deadlocks: 0 });
      this.next(key, ref, queue);
    });
  }

  /** Runs a request on its own, in a transaction of its own (a request a batch handed back). */
  async alone(ref: MarketRef, request: BookRequest): Promise<BookOutcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        const [outcome] = await this.inOwnTransaction(ref, () => [request]);
        return outcome ?? { alone: true };
      } catch (error) {
        // A deadlock with another market's transaction (their ledger accounts): nothing was written; go again.
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
    const market = await this.trading.lockMarket(trx, ref);
    if (!market) return requests.map(() => ({ error: new NotFoundError('Option') }));
    const outcomes = await this.run(trx, market, requests);
    this.books.committedBy(trx);
    return outcomes;
  }

  /**
   * Starts the market's next transaction when requests wait and none is waiting for the lock yet. A batch closes
   * when its transaction holds the market's lock, so that the requests that arrived while it waited join it; and
   * as soon as it holds it, the next transaction starts and waits for the lock in turn (`transactionsPerMarket`), so
   * that one batch is being written while the next is ready to go the moment it commits. The next reads the book
   * only once the one before has ended here too, so the book in memory is the committed one.
   */
  private next(key: string, ref: MarketRef, queue: MarketQueue): void {
    if (queue.waiting || queue.requests.length === 0) return;
    if (queue.inFlight >= this.settings.transactionsPerMarket) return;
    queue.waiting = true;
    queue.inFlight += 1;
    queue.last = this.batch(key, ref, queue, queue.last).finally(() => {
      queue.inFlight -= 1;
      // Answers held for a transaction that has since ended go now (with one still under way, at its writes).
      if (queue.inFlight === 0) answerHeld(queue);
      if (queue.inFlight === 0 && queue.requests.length === 0) this.queues.delete(key);
      else this.next(key, ref, queue);
    });
  }

  /** One batch of the market, in a transaction of its own; every request taken gets its outcome, never a rejection. */
  private async batch(
    key: string,
    ref: MarketRef,
    queue: MarketQueue,
    previous: Promise<void>,
  ): Promise<void> {
    const taken: { batch: Pending[] | null } = { batch: null };
    let previousEnded = false;
    void previous.then(() => {
      previousEnded = true;
    });
    const take = () => {
      const batch = queue.requests.splice(0, this.settings.maxBatchOrders);
      taken.batch = batch;
      queue.waiting = false;
      this.next(key, ref, queue);
      return batch.map((entry) => entry.request);
    };
    try {
      const outcomes = await this.inOwnTransaction(ref, take, previous, () =>
        setImmediate(() => answerHeld(queue)),
      );
      this.answerWhileWriting(queue, () =>
        taken.batch?.forEach((entry, index) => {
          entry.resolve(outcomes[index] ?? { alone: true });
        }),
      );
    } catch (error) {
      let failed = taken.batch;
      if (failed !== null && isRetryable(error)) {
        // A deadlock with another market's transaction: nothing was written, and the batch goes again, first.
        this.metrics?.batchFailures.inc();
        for (const entry of failed) entry.deadlocks += 1;
        queue.requests.unshift(...failed.filter((entry) => entry.deadlocks <= DEADLOCK_RETRIES));
        failed = failed.filter((entry) => entry.deadlocks > DEADLOCK_RETRIES);
        if (failed.length === 0) return;
      }
      if (failed === null) {
        queue.waiting = false;
        // Its wait for the lock outlasted lock_timeout behind this instance's own batch before it (a slow write):
        // the requests stay queued for the next transaction rather than being refused for our own slowness.
        if (isLockTimeout(error) && !previousEnded) return;
        // It failed before it held the lock: the requests it would have taken are answered for it.
        failed = queue.requests.splice(0, this.settings.maxBatchOrders);
      }
      this.batchFailed(key, failed, error);
    }
  }

  /**
   * Answers a committed batch. When the market's next transaction is already under way (it holds the lock from the
   * moment this one committed), the answers wait until it has sent its writes: building and sending them then
   * overlaps PostgreSQL's work on those writes, instead of delaying the next batch's first statements on this one
   * thread. They wait at most `ANSWER_HOLD_MS`, and never past that transaction's end.
   */
  private answerWhileWriting(queue: MarketQueue, answer: () => void): void {
    if (queue.inFlight < 2) {
      answer();
      return;
    }
    queue.answers.push(answer);
    if (queue.answers.length === 1) setTimeout(() => answerHeld(queue), ANSWER_HOLD_MS);
  }

  /**
   * A failed batch is never silent. When the database is out of reach or would not wait (the market's lock, a
   * statement past its timeout), its requests are refused with 503, nothing of them written; otherwise they are run
   * one by one.
   */
  private batchFailed(market: string, batch: Pending[], error: unknown): void {
    const unavailable = unavailableError(error);
    if (unavailable) {
      this.metrics?.ordersRefused.inc(
        { reason: unavailable.code === 'OPTION_BUSY' ? 'option_busy' : 'database' },
        batch.length,
      );
      for (const entry of batch) entry.reject(unavailable);
      return;
    }
    this.metrics?.batchFailures.inc();
    this.log.warn(
      { err: error, market, requests: batch.length },
      'an order batch failed; its requests are placed one by one',
    );
    for (const entry of batch) entry.resolve({ alone: true });
  }

  /** `previous`: what to wait for once the lock is held, before taking the requests (the batch before). */
  private async inOwnTransaction(
    ref: MarketRef,
    take: () => BookRequest[],
    previous?: Promise<void>,
    writing?: () => void,
  ): Promise<BookOutcome[]> {
    const used: { trx?: Tx } = {};
    const clock = new StepClock(this.metrics);
    const outcomes = await this.db.transaction().execute((transaction) =>
      pipelining(transaction, async (trx) => {
        used.trx = trx;
        const market = await this.trading.lockMarket(trx, ref);
        if (previous) await previous;
        const requests = take();
        clock.lap('lock', requests.length);
        if (!market) return requests.map(() => ({ error: new NotFoundError('Option') }));
        return this.run(trx, market, requests, clock, writing);
      }),
    );
    clock.lap('commit');
    if (used.trx) this.books.committedBy(used.trx);
    return outcomes;
  }

  /** The life of a batch: admit → hold → decide → write, answer and announce. */
  private async run(
    trx: Tx,
    market: LockedMarket,
    requests: BookRequest[],
    clock?: StepClock,
    writing?: () => void,
  ): Promise<BookOutcome[]> {
    const outcomes = await this.admit(trx, market, requests);
    const todo = requests.flatMap((_, index) => (outcomes[index] ? [] : [index]));
    if (todo.length === 0) {
      clock?.lap('hold');
      return outcomes as BookOutcome[];
    }
    const taken = todo.map((index) => requests[index] as BookRequest);
    const { holdings, instructions } = await this.hold(trx, market, taken);
    clock?.lap('hold');
    const answers = await this.decideAndWrite(trx, market, holdings, instructions, taken, clock, writing);
    todo.forEach((index, at) => {
      outcomes[index] = answers[at];
    });
    return outcomes as BookOutcome[];
  }

  /**
   * Decides on the books held in memory; then writes the decision, answers it and announces it side by side.
   * Nothing the answers and the listeners say waits for the writes to answer: the holders the decision touched,
   * ids for its fills and trades and what the listeners read are read first, and the book versions the writes
   * leave are known, so every statement goes out with the writes. A failure leaves no book in memory behind.
   */
  private async decideAndWrite(
    trx: Tx,
    market: LockedMarket,
    holdings: Holdings,
    instructions: Instruction[],
    requests: BookRequest[],
    clock?: StepClock,
    writing?: () => void,
  ): Promise<BookOutcome[]> {
    const books = new Map<number, BookState>();
    for (const option of market.options) books.set(option.id, await this.books.load(trx, option));
    try {
      const decision = decide(books, marketState(market, this.settings.takerFeeBps), holdings, instructions);
      if (!decision.changed) {
        clock?.lap('decide_write');
        const answers = await this.answer(trx, market, decision, null, requests);
        clock?.lap('answer');
        return answers;
      }
      const ahead = await this.readAhead(trx, decision, holdings);
      const { sent, written } = this.write(trx, market, decision, holdings, ahead);
      for (const [optionId, version] of written.bookVersions) this.books.written(trx, optionId, version);
      clock?.lap('decide_write');
      writing?.();
      const answered = this.answer(trx, market, decision, written, requests);
      const announced = this.announce(trx, market, decision, written);
      clock?.lap('answer');
      const [bookVersions, answers] = await sideBySide([sent, answered, announced] as const);
      // The answers and the listeners were told the versions before the writes answered; should the database have
      // written others (a writer outside the market's lock), the transaction goes no further.
      for (const [optionId, version] of bookVersions)
        if (written.bookVersions.get(optionId) !== version)
          throw new Error(`option ${optionId} written at book version ${version}, not the one announced`);
      clock?.lap('announce');
      return answers;
    } catch (error) {
      for (const option of market.options) this.books.forget(option.id);
      throw error;
    }
  }

  /**
   * What the requests already have as their outcome before any decision: a request for an option that trades in
   * another market than this one is sent back to find it; then idempotency (replays, keys used twice).
   */
  private async admit(
    trx: Tx,
    market: LockedMarket,
    requests: BookRequest[],
  ): Promise<(BookOutcome | undefined)[]> {
    const misrouted = market.ref.kind === 'option' ? market.exclusive : !market.exclusive;
    const outcomes: (BookOutcome | undefined)[] = requests.map((request) =>
      misrouted && request.type !== 'convert' ? { reroute: true } : undefined,
    );
    await this.idempotency.admit(trx, requests, outcomes);
    return outcomes;
  }

  /**
   * Locks what the takers hold (buyers' cash, sellers' positions, what converters give) and takes the new orders'
   * and conversions' ids.
   */
  private async hold(
    trx: Tx,
    market: LockedMarket,
    requests: BookRequest[],
  ): Promise<{ holdings: Holdings; instructions: Instruction[] }> {
    const places = requests.filter((r): r is PlaceRequest => r.type === 'place');
    const converts = requests.filter((r): r is ConvertRequest => r.type === 'convert');
    const amends = requests.filter((r): r is AmendBookRequest => r.type === 'amend');
    const payers = new Set([
      ...places.filter((p) => p.request.action === 'BUY').map((p) => p.userId),
      ...amends.filter((a) => a.request.action === 'BUY').map((a) => a.userId),
      ...converts.filter((c) => c.request.kind === 'split').map((c) => c.userId),
    ]);
    const sellers = [
      ...places.filter((p) => p.request.action === 'SELL').map((p) => ({ ...p.request, userId: p.userId })),
      ...amends.filter((a) => a.request.action === 'SELL').map((a) => ({ ...a.request, userId: a.userId })),
    ];
    // Side by side: none of the three needs another's answer.
    const [{ cash, ids }, conversionIds, positions] = await sideBySide([
      this.trading.lockCashAndTakeOrderIds(trx, [...payers], places.length + amends.length),
      this.trading.takeConversionIds(trx, converts.length),
      this.lockHolderPositions(trx, market, sellers, converts),
    ] as const);
    const instructions = requests.map((request): Instruction => {
      switch (request.type) {
        case 'place':
          return { type: 'place', order: newOrder(request, ids.shift() as number, market.dbNow) };
        case 'amend':
          return amendOf(request, ids.shift() as number);
        case 'convert':
          return { type: 'convert', id: conversionIds.shift() as number, request: request.request };
        default:
          return request;
      }
    });
    return { holdings: { cash, positions }, instructions };
  }

  /** The positions sellers sell from (the option they sell) and converters give from (every option of the event). */
  private async lockHolderPositions(
    trx: Tx,
    market: LockedMarket,
    sellers: { userId: number; optionId: number }[],
    converts: ConvertRequest[],
  ): Promise<Map<string, PositionState>> {
    const wanted = [
      ...sellers.map(({ userId, optionId }) => ({ userId, optionId })),
      ...converts.flatMap((c) => market.options.map((o) => ({ userId: c.userId, optionId: o.id }))),
    ];
    const positions = new Map<string, PositionState>();
    for (const { userId, optionId } of wanted) {
      positions.set(positionKey(userId, optionId, 'YES'), EMPTY_POSITION);
      positions.set(positionKey(userId, optionId, 'NO'), EMPTY_POSITION);
    }
    const rows = await this.trading.lockPositions(
      trx,
      [...new Set(wanted.map((w) => w.optionId))],
      [...new Set(wanted.map((w) => w.userId))],
    );
    for (const row of rows) {
      const key = positionKey(row.user_id, row.option_id, row.side);
      if (positions.has(key)) positions.set(key, positionStateOf(row));
    }
    return positions;
  }

  /**
   * What writing, answering and announcing a decision need from the database, in one round trip: the positions it
   * changed of holders not locked yet (locked and read), ids for its fills and trades, and what the placed-orders
   * listeners read.
   */
  private async readAhead(trx: Tx, decision: Decision, holdings: Holdings): Promise<ReadAhead> {
    const unread = [...decision.positions].filter(([key]) => !holdings.positions.has(key));
    const [positions, ids, reads] = await sideBySide([
      this.trading.lockPositions(
        trx,
        [...new Set(unread.map(([, p]) => p.optionId))],
        [...new Set(unread.map(([, p]) => p.userId))],
      ),
      this.trading.takeFillAndTradeIds(trx, decision.fills.length, decision.trades.length),
      this.readForListeners(trx, decision),
    ] as const);
    return { positions: positionMap(positions), ...ids, reads };
  }

  /**
   * Sends a decision's writes: one statement for the exchange's rows and one for the ledger, however many orders it
   * holds, and the conversions it made. Gives what they will have written, and the book versions as written.
   */
  private write(
    trx: Tx,
    market: LockedMarket,
    decision: Decision,
    holdings: Holdings,
    ahead: ReadAhead,
  ): { sent: Promise<Map<number, number>>; written: Written } {
    const positions = [...decision.positions].map(([key, { userId, optionId, side, changes }]) => ({
      userId,
      optionId,
      side,
      state: applyPositionChanges(
        holdings.positions.get(key) ?? ahead.positions.get(key) ?? EMPTY_POSITION,
        changes,
      ),
    }));
    const options = optionChanges(market, decision);
    const sent = sideBySide([
      this.trading.writeBatch(trx, {
        eventId: market.eventId,
        orders: [...decision.orders.values()],
        newOrderIds: decision.newOrderIds,
        fills: decision.fills,
        fillIds: ahead.fillIds,
        trades: decision.trades,
        tradeIds: ahead.tradeIds,
        positions,
        options,
      }),
      this.ledger.postMany(trx, decision.entries),
      this.trading.insertConversions(
        trx,
        decision.verdicts.flatMap((verdict) =>
          verdict.type === 'converted'
            ? [{ ...verdict.conversion, eventId: market.eventId, createdAt: market.dbNow }]
            : [],
        ),
      ),
    ] as const).then(([bookVersions]) => bookVersions);
    const trades = decision.trades.map((trade, index) => ({
      id: ahead.tradeIds[index] as number,
      fill_id: ahead.fillIds[trade.fillIndex] as number,
      order_id: trade.orderId,
      user_id: trade.userId,
      option_id: decision.fills[trade.fillIndex]?.optionId as number,
      event_id: market.eventId,
      side: trade.side,
      action: trade.action,
      quantity: trade.quantity,
      price_cents: trade.priceCents,
      fee_cents: trade.feeCents,
      liquidity: trade.liquidity,
      created_at: market.dbNow,
    }));
    const bookVersions = new Map(
      options.map((o) => [o.optionId, o.bookVersion + (o.bookChanged ? 1 : 0)] as const),
    );
    return { sent, written: { bookVersions, trades, fillIds: ahead.fillIds, reads: ahead.reads } };
  }

  /** The placed-orders listeners' reads, when the decision traded or cancelled. */
  private readForListeners(trx: Tx, decision: Decision): Promise<unknown[]> {
    const scope = placedScope(decision);
    if (scope.orders === 0) return Promise.resolve([]);
    return sideBySide(this.listeners.placed.map(({ read }) => (read ? read(trx, scope) : Promise.resolve())));
  }

  /** The answer to each request, as if it came alone; keyed requests' answers are stored for idempotent retries. */
  private async answer(
    trx: Tx,
    market: LockedMarket,
    decision: Decision,
    written: Written | null,
    requests: BookRequest[],
  ): Promise<BookOutcome[]> {
    const outcomes: BookOutcome[] = [];
    for (const [index, verdict] of decision.verdicts.entries())
      outcomes.push(await this.outcomeOf(trx, market, verdict, requests[index] as BookRequest, written));
    await this.idempotency.record(trx, requests, outcomes);
    return outcomes;
  }

  private async outcomeOf(
    trx: Tx,
    market: LockedMarket,
    verdict: Verdict,
    request: BookRequest,
    written: Written | null,
  ): Promise<BookOutcome> {
    const label = (optionId: number) => market.options.find((o) => o.id === optionId)?.label ?? '';
    const slugged = (row: OrderRow) => ({
      ...row,
      event_slug: market.slug,
      option_label: label(row.option_id),
    });
    const row = (order: OrderState) =>
      orderRowOf(order, market.dbNow, this.versionOf(market, order, written));
    switch (verdict.type) {
      case 'placed':
        return {
          result: builtWhenRead(201, () =>
            serialisePlaced({
              order: slugged(row(verdict.order)),
              trades: written?.trades.slice(verdict.trades.from, verdict.trades.to) ?? [],
              selfTradeCancelled: verdict.selfTradeCancelled.map((order) => order.id),
            }),
          ),
        };
      case 'ended':
        if (request.type === 'cancel')
          return { result: toOrderView(slugged(row(verdict.orders[0] as OrderState))) };
        return { result: verdict.orders.length };
      case 'amended': {
        const { replacement } = verdict;
        const body = {
          order: serialisePlaced({
            order: slugged(row(verdict.order)),
            trades: replacement
              ? (written?.trades.slice(replacement.trades.from, replacement.trades.to) ?? [])
              : [],
            selfTradeCancelled: replacement?.selfTradeCancelled.map((order) => order.id) ?? [],
          }),
          replacedOrder: replacement ? toOrderView(slugged(row(verdict.previous))) : null,
          priorityKept: replacement === null,
        };
        return { result: { status: 200, body, replayed: false } };
      }
      case 'converted': {
        const body = toConversionView(
          { ...verdict.conversion, eventId: market.eventId, createdAt: market.dbNow },
          {
            slug: market.slug,
            label,
          },
        );
        return { result: { status: 201, body, replayed: false } };
      }
      case 'unchanged':
        return { result: 0 };
      case 'refused':
        return { error: await this.refusalError(trx, verdict.refusal, request) };
    }
  }

  /** The book version an order's row leaves its option at. */
  private versionOf(market: LockedMarket, order: OrderState, written: Written | null): number {
    const version = written?.bookVersions.get(order.optionId);
    return version ?? market.options.find((o) => o.id === order.optionId)?.book_version ?? 0;
  }

  private async refusalError(trx: Tx, refusal: Refusal, request: BookRequest): Promise<Error> {
    switch (refusal.code) {
      case 'MARKET_CLOSED':
        return new MarketClosedError(refusal.state);
      case 'INSUFFICIENT_FUNDS':
        return new InsufficientFundsError(refusal.neededCents, refusal.availableCents);
      case 'INSUFFICIENT_SHARES':
        return new InsufficientSharesError(refusal.needed, refusal.available);
      case 'NO_LIQUIDITY':
        return new NoLiquidityError();
      case 'POST_ONLY_WOULD_TAKE':
        return new PostOnlyWouldTakeError();
      case 'FOK_NOT_FILLED':
        return new FillOrKillError(refusal.fillableQuantity);
      case 'INVALID_CONVERSION':
        return new ValidationError(refusal.reason, [{ field: 'body', message: refusal.reason }]);
      case 'ORDER_NOT_OPEN': {
        const orderId =
          request.type === 'cancel'
            ? request.orderId
            : request.type === 'amend'
              ? request.request.orderId
              : null;
        const order = orderId === null ? undefined : await this.trading.findOrder(trx, orderId);
        return new OrderNotOpenError(order?.status ?? 'unknown');
      }
    }
  }

  /**
   * Market data, then the listeners (notifications, webhooks, protections, copy trading), in the transaction, side
   * by side: none waits for another's statements to answer before sending its own.
   */
  private async announce(trx: Tx, market: LockedMarket, decision: Decision, written: Written): Promise<void> {
    const told: Promise<void>[] = [];
    for (const [optionId, option] of decision.options) {
      const bookVersion = written.bookVersions.get(optionId);
      if (!option.changed || bookVersion === undefined) continue;
      const change = {
        optionId,
        bookVersion,
        levels: option.levels,
        fills: decision.fills.flatMap((fill, index) =>
          fill.optionId === optionId
            ? [
                {
                  id: written.fillIds[index] as number,
                  yesPriceCents: fill.yesPrice,
                  quantity: fill.quantity,
                  takerSide: fill.takerSide,
                  takerAction: fill.takerAction,
                  at: market.dbNow.toISOString(),
                },
              ]
            : [],
        ),
      };
      for (const listener of this.listeners.book) told.push(listener(trx, change));
    }
    // The orders' listeners too: the book's notices, sent first, still come before anything their work adds.
    await sideBySide([...told, this.announceOrders(trx, market, decision, written)]);
  }

  private async announceOrders(trx: Tx, market: LockedMarket, decision: Decision, written: Written) {
    const row = (order: OrderState) =>
      orderRowOf(order, market.dbNow, this.versionOf(market, order, written));
    const placed: OrderCommitted[] = [];
    const ended = new Map<EndReason, OrderRow[]>();
    const shrunk: OrderRow[] = [];
    const converted: ConversionCommitted[] = [];
    const endOf = (reason: EndReason, orders: OrderState[]) =>
      ended.set(reason, [...(ended.get(reason) ?? []), ...orders.map(row)]);
    const place = (verdict: PlacedVerdict) => {
      const option = market.options.find((o) => o.id === verdict.order.optionId);
      placed.push({
        optionId: verdict.order.optionId,
        eventId: market.eventId,
        names: { eventSlug: market.slug, eventTitle: market.title, optionLabel: option?.label ?? '' },
        protectedPositions: option?.has_protections ?? true,
        order: row(verdict.order),
        trades: written.trades.slice(verdict.trades.from, verdict.trades.to),
        makerOrders: verdict.makers.map(row),
        cancelledOrders: verdict.selfTradeCancelled.map(row),
      });
    };
    for (const verdict of decision.verdicts) {
      if (verdict.type === 'placed') place(verdict);
      if (verdict.type === 'ended') endOf(verdict.reason, verdict.orders);
      if (verdict.type === 'amended' && verdict.replacement) {
        endOf('cancelled', [verdict.previous]);
        place(verdict.replacement);
      } else if (verdict.type === 'amended' && verdict.order !== verdict.previous)
        shrunk.push(row(verdict.order));
      if (verdict.type === 'converted') converted.push({ ...verdict.conversion, eventId: market.eventId });
    }
    // Each kind's listeners side by side, in the transaction: none waits for another's statements to answer.
    if (placed.length > 0)
      await sideBySide(
        this.listeners.placed.map(({ announce }, index) => announce(trx, placed, written.reads[index])),
      );
    for (const [reason, orders] of ended) {
      if (orders.length > 0)
        await sideBySide(this.listeners.ended.map((listener) => listener(trx, orders, reason)));
    }
    if (shrunk.length > 0) await sideBySide(this.listeners.amended.map((listener) => listener(trx, shrunk)));
    if (converted.length > 0)
      await sideBySide(this.listeners.converted.map((listener) => listener(trx, converted)));
  }
}

type BatchStep = 'lock' | 'hold' | 'decide_write' | 'answer' | 'announce' | 'commit';

/**
 * The wall time of one transaction's steps, added up in `exchange_order_batch_step_seconds_total`: where the time
 * under a market's lock goes (the lock step is the wait for it, with the batch before it ending here).
 */
class StepClock {
  private last = performance.now();

  constructor(private readonly metrics: Metrics | null) {}

  /** Ends a step; `requests`, once, counts the requests the transaction took. */
  lap(step: BatchStep, requests?: number): void {
    const now = performance.now();
    this.metrics?.batchStepSeconds.inc({ step }, (now - this.last) / 1000);
    if (requests) this.metrics?.batchRequests.inc(requests);
    this.last = now;
  }
}

/** Whom the orders a decision placed may concern: the users of its trades and of the orders it cancelled. */
function placedScope(decision: Decision): PlacedScope {
  const cancelled = decision.verdicts.flatMap((verdict) =>
    verdict.type === 'placed'
      ? verdict.selfTradeCancelled
      : verdict.type === 'amended' && verdict.replacement
        ? verdict.replacement.selfTradeCancelled
        : [],
  );
  const users = new Set(decision.trades.map((trade) => trade.userId));
  for (const order of cancelled) users.add(order.userId);
  return { users: [...users], orders: decision.trades.length + cancelled.length };
}

/** An order as the decision takes it: its time in force settled, a relative expiry made absolute on `now`. */
function newOrder(request: PlaceRequest, id: number, now: Date): NewOrder {
  const { request: order, userId } = request;
  const expiresAt =
    order.expiresAt ??
    (order.expiresInHours ? new Date(now.getTime() + order.expiresInHours * 3_600_000) : null);
  const timeInForce = order.kind === 'market' ? 'IOC' : (order.timeInForce ?? (expiresAt ? 'GTD' : 'GTC'));
  return {
    id,
    optionId: order.optionId,
    userId,
    kind: order.kind,
    side: order.side,
    action: order.action,
    quantity: order.quantity,
    priceCents: order.priceCents,
    timeInForce,
    postOnly: order.postOnly ?? false,
    expiresAt: timeInForce === 'GTD' ? expiresAt : null,
    clientOrderId: order.clientOrderId ?? null,
    placedBy: order.placedBy ?? null,
  };
}

/**
 * A placed order's answer, its body built when first read: after the commit, outside the market's lock, where the
 * next batch need not wait for it (a keyed request's answer is read inside, to be stored). Everything it is built
 * from is immutable, so it is the answer as of its own batch whenever it is read.
 */
function builtWhenRead(status: number, build: () => unknown) {
  let body: unknown;
  let built = false;
  return {
    status,
    replayed: false,
    get body() {
      if (!built) {
        body = build();
        built = true;
      }
      return body;
    },
  };
}

function amendOf(request: AmendBookRequest, replacementId: number): Instruction {
  const { request: amend, userId } = request;
  return {
    type: 'amend',
    optionId: amend.optionId,
    orderId: amend.orderId,
    userId,
    remainingQuantity: amend.remainingQuantity,
    priceCents: amend.priceCents,
    replacement: { id: replacementId, clientOrderId: amend.clientOrderId, placedBy: amend.placedBy },
  };
}

/** The market as the exchange's decision sees it. */
function marketState(market: LockedMarket, feeBps: number): MarketState {
  const first = market.options[0];
  return {
    closed: closedReason(market),
    conversionsClosed:
      market.eventStatus === 'open' || market.eventStatus === 'closed' ? null : market.eventStatus,
    house: houseOf(market),
    exclusive:
      market.exclusive && first
        ? {
            eventId: market.eventId,
            optionIds: market.options.map((o) => o.id),
            pool: { yesSets: first.pool_yes_shares, noSets: first.pool_no_shares },
            lastYesPrices: new Map(market.options.map((o) => [o.id, o.last_yes_price])),
          }
        : null,
    feeBps,
    now: market.dbNow,
  };
}

/** What the decision changed of each option of the market, to be written. */
function optionChanges(market: LockedMarket, decision: Decision) {
  return market.options.map((option) => {
    const decided = decision.options.get(option.id);
    const house = decided?.house;
    return {
      optionId: option.id,
      ...(decided?.totals ?? {
        pairsMinted: 0,
        pairsMerged: 0,
        volumeShares: 0,
        volumeCents: 0,
        lastYesPrice: null,
        houseCashCents: 0,
      }),
      ammYesShares: house?.yesShares ?? option.amm_yes_shares,
      ammNoShares: house?.noShares ?? option.amm_no_shares,
      poolYesShares: decision.pool?.yesSets ?? option.pool_yes_shares,
      poolNoShares: decision.pool?.noSets ?? option.pool_no_shares,
      bookChanged: decided?.changed ?? false,
      bookVersion: option.book_version,
    };
  });
}

/** The 503 a request gets when the database cannot serve it or would not wait; null for any other failure. */
function unavailableError(error: unknown): ServiceUnavailableError | null {
  if (isLockTimeout(error)) return new OptionBusyError();
  const condition = databaseCondition(error);
  if (condition) return databaseConditionError(condition);
  return null;
}

/** Why the market takes no orders now, or null when it does. */
function closedReason(market: LockedMarket): string | null {
  if (market.eventStatus !== 'open') return market.eventStatus;
  if (market.closesAt <= market.dbNow) return 'past its closing time';
  return null;
}

/** Sends the answers a market's queue holds (see `answerWhileWriting`). */
function answerHeld(queue: MarketQueue): void {
  for (const answer of queue.answers.splice(0)) answer();
}

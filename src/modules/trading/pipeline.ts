import type { Kysely } from 'kysely';
import {
  applyPositionChanges,
  type Decision,
  decide,
  type Holdings,
  type Instruction,
  type Refusal,
  type Verdict,
} from '../../exchange/decision.js';
import { positionKey } from '../../exchange/execution.js';
import type { OrderState } from '../../exchange/orders.js';
import { EMPTY_POSITION, type PositionState } from '../../exchange/positions.js';
import type { DB } from '../../platform/db/schema.js';
import { isDatabaseUnavailable, isLockTimeout, isUniqueViolation, type Tx } from '../../platform/db/types.js';
import {
  DatabaseUnavailableError,
  InsufficientFundsError,
  NotFoundError,
  type ServiceUnavailableError,
} from '../../platform/errors.js';
import type { Metrics } from '../../platform/metrics.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { BookCache } from './books.js';
import {
  IdempotencyMismatchError,
  InsufficientSharesError,
  MarketClosedError,
  NoLiquidityError,
  OptionBusyError,
  OrderNotOpenError,
  OrderQueueFullError,
} from './errors.js';
import type { LockedOption, OrderRow, TradeRow, TradingRepository } from './repository.js';
import { houseMakerOf, orderRowOf, positionMap, positionStateOf } from './rows.js';
import type {
  BookOutcome,
  BookRequest,
  EndReason,
  OrderCommitted,
  TradingListeners,
  TradingSettings,
} from './types.js';
import { serialisePlaced, toOrderView } from './views.js';

type PlaceRequest = Extract<BookRequest, { type: 'place' }>;

interface Pending {
  request: BookRequest;
  resolve: (outcome: BookOutcome) => void;
  reject: (error: unknown) => void;
}

/** What a decision's write gave back: the book's new version, and the rows made with their ids. */
interface Written {
  bookVersion: number;
  trades: TradeRow[];
  fillIds: number[];
}

export interface PipelineSettings extends TradingSettings {
  /** The most requests one batch takes; more wait for the next batch. */
  maxBatchOrders: number;
}

export interface WarnLog {
  warn(details: object, message: string): void;
}

/**
 * The life of an order, and of every other change to an option's book (a cancel, an expiry, a market close): under
 * the option's row lock, load → decide → write → answer → announce, in one transaction. The decision is the
 * exchange's (`decide` in src/exchange/decision.ts); everything here is reading, writing and telling.
 *
 * Requests sent over the API queue per option: while one batch of an option is being written, the requests that
 * arrive wait and then go together as the next batch, with a constant number of statements however many it holds.
 * Each gets the answer it would have got alone. A batch that fails for any reason but the database being out of
 * reach is logged, counted, and its requests are run again one by one.
 */
export class OrderPipeline {
  private readonly queues = new Map<number, Pending[]>();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly trading: TradingRepository,
    private readonly ledger: LedgerRepository,
    private readonly books: BookCache,
    private readonly listeners: TradingListeners,
    private readonly settings: PipelineSettings,
    private readonly log: WarnLog,
    private readonly metrics: Metrics | null,
  ) {}

  /**
   * Queues a request for its option's next batch; resolves when that batch has committed. A full queue refuses it
   * at once, so a stalled option holds a bounded number of requests and never the memory of unbounded ones.
   */
  submit(optionId: number, request: BookRequest): Promise<BookOutcome> {
    return new Promise((resolve, reject) => {
      let queue = this.queues.get(optionId);
      if (queue && queue.length >= this.settings.maxQueuedOrdersPerOption) {
        this.metrics?.ordersRefused.inc({ reason: 'queue_full' });
        reject(new OrderQueueFullError(this.settings.maxQueuedOrdersPerOption));
        return;
      }
      if (!queue) {
        queue = [];
        this.queues.set(optionId, queue);
        setImmediate(() => void this.drain(optionId, queue as Pending[]));
      }
      queue.push({ request, resolve, reject });
    });
  }

  /** Runs requests on their own, one transaction each (a request a batch handed back, or one that must wait for none). */
  async alone(optionId: number, request: BookRequest): Promise<BookOutcome> {
    try {
      const [outcome] = await this.inOwnTransaction(optionId, () => [request]);
      return outcome ?? { alone: true };
    } catch (error) {
      // Another transaction took the same clientOrderId between our check and our write.
      if (isUniqueViolation(error, 'orders_client_order_id_idx'))
        return { error: new IdempotencyMismatchError() };
      throw unavailableError(error) ?? error;
    }
  }

  /** Runs requests in a transaction the caller holds (a market close, a protective sell under another order's lock). */
  async runInTransaction(trx: Tx, optionId: number, requests: BookRequest[]): Promise<BookOutcome[]> {
    const option = await this.trading.lockOption(trx, optionId);
    if (!option) return requests.map(() => ({ error: new NotFoundError('Option') }));
    return this.run(trx, option, requests);
  }

  /**
   * Writes the option's batches one after another while requests are waiting. A batch closes when its transaction
   * holds the option lock, so that the requests that arrived while it waited for the lock join it.
   */
  private async drain(optionId: number, queue: Pending[]): Promise<void> {
    while (queue.length > 0) {
      let batch: Pending[] = [];
      try {
        const outcomes = await this.inOwnTransaction(optionId, () => {
          batch = queue.splice(0, this.settings.maxBatchOrders);
          return batch.map((entry) => entry.request);
        });
        batch.forEach((entry, index) => {
          entry.resolve(outcomes[index] ?? { alone: true });
        });
      } catch (error) {
        if (batch.length === 0) batch = queue.splice(0, this.settings.maxBatchOrders);
        this.batchFailed(optionId, batch, error);
      }
    }
    this.queues.delete(optionId);
  }

  /**
   * A failed batch is never silent. When the database is out of reach or would not wait (the option's lock, a
   * statement past its timeout), its requests are refused with 503, nothing of them written; otherwise they are run
   * one by one.
   */
  private batchFailed(optionId: number, batch: Pending[], error: unknown): void {
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
      { err: error, optionId, requests: batch.length },
      'an order batch failed; its requests are placed one by one',
    );
    for (const entry of batch) entry.resolve({ alone: true });
  }

  private async inOwnTransaction(optionId: number, take: () => BookRequest[]): Promise<BookOutcome[]> {
    const used: { trx?: Tx } = {};
    const outcomes = await this.db.transaction().execute(async (trx) => {
      used.trx = trx;
      const option = await this.trading.lockOption(trx, optionId);
      const requests = take();
      if (!option) return requests.map(() => ({ error: new NotFoundError('Option') }));
      return this.run(trx, option, requests);
    });
    if (used.trx) this.books.committed(used.trx, optionId);
    return outcomes;
  }

  /** The life of a batch: admit → hold → decide → write → answer → announce. */
  private async run(trx: Tx, option: LockedOption, requests: BookRequest[]): Promise<BookOutcome[]> {
    const outcomes = await this.admit(trx, requests);
    const todo = requests.flatMap((_, index) => (outcomes[index] ? [] : [index]));
    if (todo.length === 0) return outcomes as BookOutcome[];
    const { holdings, instructions } = await this.hold(
      trx,
      option,
      todo.map((index) => requests[index] as BookRequest),
    );
    const { decision, written } = await this.decideAndWrite(trx, option, holdings, instructions);
    const answers = await this.answer(
      trx,
      option,
      decision,
      written,
      todo.map((i) => requests[i] as BookRequest),
    );
    todo.forEach((index, at) => {
      outcomes[index] = answers[at];
    });
    if (written) await this.announce(trx, option, decision, written);
    return outcomes as BookOutcome[];
  }

  /** Decides on the book held in memory and writes the decision; a failure leaves no book in memory behind. */
  private async decideAndWrite(
    trx: Tx,
    option: LockedOption,
    holdings: Holdings,
    instructions: Instruction[],
  ): Promise<{ decision: Decision; written: Written | null }> {
    const book = await this.books.load(trx, option);
    const market = {
      optionId: option.id,
      closed: closedReason(option),
      amm: houseMakerOf(option),
      feeBps: this.settings.takerFeeBps,
      now: option.db_now,
    };
    try {
      const decision = decide(book, market, holdings, instructions);
      const written = decision.changed ? await this.write(trx, option, decision, holdings) : null;
      if (written) this.books.written(trx, option.id, written.bookVersion);
      return { decision, written };
    } catch (error) {
      this.books.forget(option.id);
      throw error;
    }
  }

  /**
   * Idempotency: a key used before replays its stored result (or is refused when the request differs); a key or
   * clientOrderId used twice in one batch is handed back to run alone after it, when the first use has committed.
   */
  private async admit(trx: Tx, requests: BookRequest[]): Promise<(BookOutcome | undefined)[]> {
    const outcomes: (BookOutcome | undefined)[] = requests.map(() => undefined);
    const seen = new Set<string>();
    requests.forEach((request, index) => {
      if (request.type !== 'place') return;
      const names = [
        request.key && `key:${request.userId}:${request.key}`,
        request.request.clientOrderId && `client:${request.userId}:${request.request.clientOrderId}`,
      ].filter((name): name is string => Boolean(name));
      if (names.some((name) => seen.has(name))) outcomes[index] = { alone: true };
      for (const name of names) seen.add(name);
    });
    await this.replayKnownKeys(trx, requests, outcomes);
    await this.refuseUsedClientOrderIds(trx, requests, outcomes);
    return outcomes;
  }

  private async replayKnownKeys(trx: Tx, requests: BookRequest[], outcomes: (BookOutcome | undefined)[]) {
    const keyed = requests.flatMap((request, index) =>
      request.type === 'place' && request.key && !outcomes[index] ? [{ request, index }] : [],
    );
    if (keyed.length === 0) return;
    const stored = await this.trading.findIdempotencyKeys(
      trx,
      keyed.map(({ request }) => ({ userId: request.userId, key: request.key as string })),
    );
    const byKey = new Map(stored.map((row) => [`${row.user_id}:${row.key}`, row]));
    for (const { request, index } of keyed) {
      const row = byKey.get(`${request.userId}:${request.key}`);
      if (!row) continue;
      outcomes[index] =
        row.request_hash === request.requestHash
          ? { result: { status: row.status_code ?? 201, body: row.response, replayed: true } }
          : { error: new IdempotencyMismatchError() };
    }
  }

  /** A clientOrderId names one order of its user: a new request under another key cannot take it again. */
  private async refuseUsedClientOrderIds(
    trx: Tx,
    requests: BookRequest[],
    outcomes: (BookOutcome | undefined)[],
  ) {
    const named = requests.flatMap((request, index) =>
      request.type === 'place' && request.request.clientOrderId && !outcomes[index]
        ? [{ userId: request.userId, clientOrderId: request.request.clientOrderId, index }]
        : [],
    );
    if (named.length === 0) return;
    const used = new Set(
      (await this.trading.usedClientOrderIds(trx, named)).map(
        (row) => `${row.user_id}:${row.client_order_id}`,
      ),
    );
    for (const { userId, clientOrderId, index } of named)
      if (used.has(`${userId}:${clientOrderId}`)) outcomes[index] = { error: new IdempotencyMismatchError() };
  }

  /** Locks what the takers hold (buyers' cash, sellers' positions) and takes the new orders' ids. */
  private async hold(
    trx: Tx,
    option: LockedOption,
    requests: BookRequest[],
  ): Promise<{ holdings: Holdings; instructions: Instruction[] }> {
    const places = requests.filter((r): r is PlaceRequest => r.type === 'place');
    const buyers = new Set(places.filter((p) => p.request.action === 'BUY').map((p) => p.userId));
    const sellers = new Set(places.filter((p) => p.request.action === 'SELL').map((p) => p.userId));
    const { cash, ids } = await this.trading.lockCashAndTakeOrderIds(trx, [...buyers], places.length);
    const positions = new Map<string, PositionState>();
    for (const userId of sellers) {
      positions.set(positionKey(userId, 'YES'), EMPTY_POSITION);
      positions.set(positionKey(userId, 'NO'), EMPTY_POSITION);
    }
    for (const row of await this.trading.lockPositions(trx, option.id, [...sellers]))
      positions.set(positionKey(row.user_id, row.side), positionStateOf(row));
    const instructions = requests.map((request): Instruction => {
      if (request.type !== 'place') return request;
      const { request: order, userId } = request;
      return {
        type: 'place',
        order: {
          id: ids.shift() as number,
          userId,
          kind: order.kind,
          side: order.side,
          action: order.action,
          quantity: order.quantity,
          priceCents: order.priceCents,
          expiresInHours: order.expiresInHours ?? null,
          clientOrderId: order.clientOrderId ?? null,
        },
      };
    });
    return { holdings: { cash, positions }, instructions };
  }

  /**
   * Writes a decision: the positions it changed (holders not locked yet are locked and read first), one statement
   * for the exchange's rows and one for the ledger, however many orders it holds.
   */
  private async write(
    trx: Tx,
    option: LockedOption,
    decision: Decision,
    holdings: Holdings,
  ): Promise<Written> {
    const unread = [...decision.positions.keys()].filter((key) => !holdings.positions.has(key));
    const users = [...new Set(unread.map((key) => decision.positions.get(key)?.userId as number))];
    const read = positionMap(await this.trading.lockPositions(trx, option.id, users));
    const positions = [...decision.positions].map(([key, { userId, side, changes }]) => ({
      userId,
      side,
      state: applyPositionChanges(holdings.positions.get(key) ?? read.get(key) ?? EMPTY_POSITION, changes),
    }));
    const { totals, house } = decision;
    const { bookVersion, fillIds, tradeIds } = await this.trading.writeBatch(trx, {
      optionId: option.id,
      eventId: option.event_id,
      orders: [...decision.orders.values()],
      newOrderIds: decision.newOrderIds,
      fills: decision.fills,
      trades: decision.trades,
      positions,
      option: {
        ammYesShares: house?.yesShares ?? option.amm_yes_shares,
        ammNoShares: house?.noShares ?? option.amm_no_shares,
        ...totals,
      },
    });
    await this.ledger.postMany(trx, decision.entries);
    const trades = decision.trades.map((trade, index) => ({
      id: tradeIds[index] as number,
      fill_id: fillIds[trade.fillIndex] as number,
      order_id: trade.orderId,
      user_id: trade.userId,
      option_id: option.id,
      event_id: option.event_id,
      side: trade.side,
      action: trade.action,
      quantity: trade.quantity,
      price_cents: trade.priceCents,
      fee_cents: trade.feeCents,
      liquidity: trade.liquidity,
      created_at: option.db_now,
    }));
    return { bookVersion, trades, fillIds };
  }

  /** The answer to each request, as if it came alone; placed orders' answers are stored for idempotent retries. */
  private async answer(
    trx: Tx,
    option: LockedOption,
    decision: Decision,
    written: Written | null,
    requests: BookRequest[],
  ): Promise<BookOutcome[]> {
    const stored: {
      userId: number;
      key: string;
      requestHash: string;
      statusCode: number;
      response: unknown;
    }[] = [];
    const outcomes: BookOutcome[] = [];
    for (const [index, verdict] of decision.verdicts.entries()) {
      const request = requests[index] as BookRequest;
      const outcome = await this.outcomeOf(trx, option, verdict, request, written);
      if (request.type === 'place' && request.key && 'result' in outcome)
        stored.push({
          userId: request.userId,
          key: request.key,
          requestHash: request.requestHash,
          statusCode: 201,
          response: (outcome.result as { body: unknown }).body,
        });
      outcomes.push(outcome);
    }
    if ((await this.trading.insertIdempotencyResults(trx, stored)) !== stored.length)
      throw new IdempotencyRaceError();
    return outcomes;
  }

  private async outcomeOf(
    trx: Tx,
    option: LockedOption,
    verdict: Verdict,
    request: BookRequest,
    written: Written | null,
  ): Promise<BookOutcome> {
    const slugged = (row: OrderRow) => ({ ...row, event_slug: option.slug, option_label: option.label });
    const row = (order: Parameters<typeof orderRowOf>[0]) =>
      orderRowOf(order, option.id, option.db_now, written?.bookVersion ?? option.book_version);
    switch (verdict.type) {
      case 'placed': {
        const body = serialisePlaced({
          order: slugged(row(verdict.order)),
          trades: written?.trades.slice(verdict.trades.from, verdict.trades.to) ?? [],
          selfTradeCancelled: verdict.selfTradeCancelled.map((order) => order.id),
        });
        return { result: { status: 201, body, replayed: false } };
      }
      case 'ended':
        if (request.type === 'cancel')
          return { result: toOrderView(slugged(row(verdict.orders[0] as OrderState))) };
        return { result: verdict.orders.length };
      case 'unchanged':
        return { result: 0 };
      case 'refused':
        return { error: await this.refusalError(trx, verdict.refusal, request) };
    }
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
      case 'ORDER_NOT_OPEN': {
        const order =
          request.type === 'cancel' ? await this.trading.findOrder(trx, request.orderId) : undefined;
        return new OrderNotOpenError(order?.status ?? 'unknown');
      }
    }
  }

  /** Market data, then the listeners (notifications, webhooks, protections, copy trading), in the transaction. */
  private async announce(trx: Tx, option: LockedOption, decision: Decision, written: Written): Promise<void> {
    const row = (order: Parameters<typeof orderRowOf>[0]) =>
      orderRowOf(order, option.id, option.db_now, written.bookVersion);
    const change = {
      optionId: option.id,
      bookVersion: written.bookVersion,
      levels: decision.levels,
      fills: decision.fills.map((fill, index) => ({
        id: written.fillIds[index] as number,
        yesPriceCents: fill.yesPrice,
        quantity: fill.quantity,
        takerSide: fill.takerSide,
        takerAction: fill.takerAction,
        at: option.db_now.toISOString(),
      })),
    };
    for (const listener of this.listeners.book) await listener(trx, change);
    const placed: OrderCommitted[] = [];
    const ended = new Map<EndReason, OrderRow[]>();
    for (const verdict of decision.verdicts) {
      if (verdict.type === 'placed')
        placed.push({
          optionId: option.id,
          eventId: option.event_id,
          order: row(verdict.order),
          trades: written.trades.slice(verdict.trades.from, verdict.trades.to),
          makerOrders: verdict.makers.map(row),
          cancelledOrders: verdict.selfTradeCancelled.map(row),
        });
      if (verdict.type === 'ended')
        ended.set(verdict.reason, [...(ended.get(verdict.reason) ?? []), ...verdict.orders.map(row)]);
    }
    if (placed.length > 0) for (const listener of this.listeners.placed) await listener(trx, placed);
    for (const [reason, orders] of ended) {
      if (orders.length > 0) for (const listener of this.listeners.ended) await listener(trx, orders, reason);
    }
  }
}

/** Another transaction stored an answer under the same idempotency key first: run the request again to replay it. */
export class IdempotencyRaceError extends Error {
  constructor() {
    super('an idempotency key was used by two requests at once');
  }
}

/** The 503 a request gets when the database is out of reach or would not wait; null for any other failure. */
function unavailableError(error: unknown): ServiceUnavailableError | null {
  if (isLockTimeout(error)) return new OptionBusyError();
  if (isDatabaseUnavailable(error)) return new DatabaseUnavailableError();
  return null;
}

/** Why the option takes no orders now, or null when it does. */
function closedReason(option: LockedOption): string | null {
  if (option.event_status !== 'open') return option.event_status;
  if (option.closes_at <= option.db_now) return 'past its closing time';
  return null;
}

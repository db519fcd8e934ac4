import type { Kysely } from 'kysely';
import { amendWorstCase, splitCost } from '../../exchange/collateral.js';
import type { ConversionKind } from '../../exchange/conversions.js';
import type { KeyLimits } from '../../exchange/key-limits.js';
import type { DB } from '../../platform/db/schema.js';
import type { Tx } from '../../platform/db/types.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import type { Metrics } from '../../platform/metrics.js';
import type { LedgerRepository } from '../ledger/repository.js';
import { BookCache } from './books.js';
import { OrderCancels } from './cancels.js';
import type { CollateralDesk, MarketNeed } from './collateral.js';
import { MarketDirectory } from './directory.js';
import { EventNotExclusiveError, IdempotencyMismatchError, ReplayedRefusalError } from './errors.js';
import { answerOf, HeldRequests, type OrderEntry } from './held-requests.js';
import type { IdempotencyRepository } from './idempotency-repository.js';
import { CYCLE_REQUEST_LIMIT, OrderPipeline, PIPELINE_BATCH_LIMIT, type WarnLog } from './pipeline/index.js';
import type { MarketRef, OrderRow, TradingRepository } from './repository.js';
import { clientOrderKey, hashOf, hashRequest, orderNeed, placeRequest } from './requests.js';
import { RequestRouter } from './router.js';
import { checkOrderTerms } from './terms.js';
import {
  type AmendListener,
  type AmendRequest,
  type BookListener,
  type BookRequest,
  type ConversionListener,
  type EndListener,
  type OrderListener,
  type OrderReader,
  type OrderRequest,
  type PlaceResult,
  TradingListeners,
  type TradingSettings,
} from './types.js';
import type { serialisePlaced } from './views.js';

export type PlacedOrderView = ReturnType<typeof serialisePlaced>;

/**
 * Takes what a request's new orders cost from the caller's order budget, or throws its refusal; called once the
 * service knows how many of them are new (not retries answered from their idempotency keys).
 */
export type ChargeOrders = (orders: number) => Promise<void>;

const chargeNothing: ChargeOrders = async () => {};

/**
 * Trading's changes: orders placed and amended, conversions and market close; cancels and expiries are its
 * `cancels` (cancels.ts). Every change to a book goes through the order pipeline (pipeline/index.ts: queue → lock →
 * admit → hold → decide in src/exchange/decision.ts → write, answer, announce → commit); nothing else decides an
 * order's fate. What each request may spend is set aside before it queues, and given back after, by HeldRequests
 * (held-requests.ts). Reads are TradingReads' (reads.ts), payouts SettlementService's (settlement.ts).
 */
export class TradingService {
  private readonly listeners = new TradingListeners();
  private readonly route: RequestRouter;
  private readonly settings: TradingSettings;
  /** Cancels by id, cancel-all, and expiries (cancels.ts). */
  readonly cancels: OrderCancels;
  private readonly held: HeldRequests;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly trading: TradingRepository,
    private readonly keys: IdempotencyRepository,
    desk: CollateralDesk,
    ledger: LedgerRepository,
    settings: TradingSettings,
    observe: { log: WarnLog; metrics: Metrics | null },
  ) {
    const pipeline = new OrderPipeline(
      db,
      { trading, keys, ledger },
      new BookCache(trading, settings.booksInMemory),
      this.listeners,
      { ...settings, maxBatchOrders: PIPELINE_BATCH_LIMIT, maxCycleRequests: CYCLE_REQUEST_LIMIT },
      observe.log,
      observe.metrics,
    );
    this.route = new RequestRouter(pipeline, new MarketDirectory(db, trading));
    this.settings = settings;
    this.cancels = new OrderCancels(db, trading, this.route);
    this.held = new HeldRequests(db, keys, desk);
  }

  /** Takes no more requests into the order pipeline; resolves once every request it took has its answer. */
  drain(): Promise<void> {
    return this.route.drain();
  }

  /**
   * Called inside the transaction with every order it placed; `read`, when given, runs in the decision's read-ahead,
   * before its writes (when it traded or cancelled), and its answer is handed to the listener.
   */
  onOrderCommitted<R>(listener: OrderListener<R>, read?: OrderReader<R>): void {
    this.listeners.placed.push(
      read
        ? { announce: listener as OrderListener, read: read as OrderReader }
        : { announce: listener as OrderListener },
    );
  }

  /** Called inside the transaction with the orders an amend shrank where they stand. */
  onOrdersAmended(listener: AmendListener): void {
    this.listeners.amended.push(listener);
  }

  /** Called inside the transaction with the orders a cancel, an expiry or a market close ended. */
  onOrdersEnded(listener: EndListener): void {
    this.listeners.ended.push(listener);
  }

  /** Called inside the transaction of every change to a book, with the levels it touched as they now stand. */
  onBookChanged(listener: BookListener): void {
    this.listeners.book.push(listener);
  }

  /** Called inside the transaction with the conversions it carried out. */
  onConverted(listener: ConversionListener): void {
    this.listeners.converted.push(listener);
  }

  /**
   * Places an order. With an idempotency key (the Idempotency-Key header, or else the clientOrderId), a retry
   * returns the first result and never places a second order.
   */
  async placeOrder(
    userId: number,
    request: OrderRequest,
    idempotencyKey: string | null,
    charge: ChargeOrders = chargeNothing,
  ): Promise<PlaceResult> {
    checkOrderTerms(request, this.settings.maxOrderQuantity, new Date());
    const key = idempotencyKey ?? clientOrderKey(request);
    const answered = await this.held.answeredKeys(userId, [key]);
    await charge(answered.size === 0 ? 1 : 0);
    const need = key !== null && answered.has(key) ? null : orderNeed(request, this.settings.takerFeeBps);
    const [outcome] = await this.held.withCollateral(
      userId,
      [{ optionId: request.optionId, request: placeRequest(userId, request, key), need }],
      (entries) => this.route.all(entries),
    );
    return answerOf(outcome) as PlaceResult;
  }

  /**
   * Places a batch of orders, each decided as if placed alone, in the order given, each with its own answer (its
   * result, or the error it met). What each order may spend is set aside first, in order (a later order may be
   * refused 402 because an earlier one took the cash); then every market's orders go to it at once, those of one
   * market riding its next transaction in their order. With an Idempotency-Key the batch is claimed under it first
   * (another batch under the same key is refused whole), and each order is idempotent under the key and its place in
   * the batch, so a retry answers what each order got the first time (placed or refused) and decides only the
   * orders never decided. `charge` is given how many orders are new, before any is queued.
   */
  async placeBatch(
    userId: number,
    items: ({ order: OrderRequest } | { error: unknown })[],
    idempotencyKey: string | null,
    charge: ChargeOrders = chargeNothing,
  ): Promise<{ outcomes: ({ result: PlaceResult } | { error: unknown })[]; replayed: boolean }> {
    const keys = items.map((item, index) => {
      if (idempotencyKey !== null) return `batch ${idempotencyKey} ${index}`;
      return 'order' in item ? clientOrderKey(item.order) : null;
    });
    let claim: 'new' | 'same' | 'mismatch' = 'new';
    if (idempotencyKey !== null) {
      const fingerprint = hashOf(
        items.map((item) => ('order' in item ? hashRequest(item.order) : 'refused')),
      );
      claim = await this.keys.claimIdempotencyKey(this.db, userId, `batch ${idempotencyKey}`, fingerprint);
      if (claim === 'mismatch') throw new IdempotencyMismatchError();
    }
    // A batch claimed just now has placed nothing yet; a retry pays only for what it has not placed before.
    const answered =
      claim === 'new' && idempotencyKey !== null
        ? new Set<string>()
        : await this.held.answeredKeys(userId, keys);
    await charge(keys.filter((key) => key === null || !answered.has(key)).length);
    const entries = this.batchEntries(userId, items, keys, answered);
    const outcomes = await this.held.withCollateral(userId, entries, (ready) => this.route.all(ready));
    const replayed =
      outcomes.length > 0 &&
      outcomes.every((o) =>
        'result' in o ? (o.result as PlaceResult).replayed : o.error instanceof ReplayedRefusalError,
      );
    return { outcomes: outcomes as ({ result: PlaceResult } | { error: unknown })[], replayed };
  }

  /** A batch's orders as requests with what each may spend (nothing for one answered before), or their refusal. */
  private batchEntries(
    userId: number,
    items: ({ order: OrderRequest } | { error: unknown })[],
    keys: (string | null)[],
    answered: Set<string>,
  ): (OrderEntry | { error: unknown })[] {
    const now = new Date();
    return items.map((item, index) => {
      if ('error' in item) return item;
      try {
        checkOrderTerms(item.order, this.settings.maxOrderQuantity, now);
      } catch (error) {
        return { error };
      }
      const key = keys[index] ?? null;
      const need =
        key !== null && answered.has(key) ? null : orderNeed(item.order, this.settings.takerFeeBps);
      return { optionId: item.order.optionId, request: placeRequest(userId, item.order, key), need };
    });
  }

  /**
   * Amends a user's resting order: fewer shares at the same price shrink it in place, keeping its time priority;
   * a new price or more shares cancel it and place a replacement at once, in one transaction (the replacement queues
   * behind the orders already at its price). With an Idempotency-Key, a retry returns the first result.
   */
  async amendOrder(
    userId: number,
    orderId: number,
    changes: {
      remainingQuantity?: number | undefined;
      priceCents?: number | undefined;
      clientOrderId?: string;
    },
    context: {
      idempotencyKey: string | null;
      placedBy: string | null;
      keyLimits?: KeyLimits | null;
      charge?: ChargeOrders;
    },
  ): Promise<PlaceResult> {
    if (changes.remainingQuantity === undefined && changes.priceCents === undefined)
      throw new ValidationError('An amend changes remainingQuantity, limitPriceCents or both', [
        { field: 'body', message: 'must name remainingQuantity or limitPriceCents' },
      ]);
    if ((changes.remainingQuantity ?? 0) > this.settings.maxOrderQuantity)
      throw new ValidationError(`remainingQuantity may be at most ${this.settings.maxOrderQuantity}`, [
        { field: 'body.remainingQuantity', message: `must be <= ${this.settings.maxOrderQuantity}` },
      ]);
    const order = await this.trading.findOrder(this.db, orderId);
    if (!order || order.user_id !== userId) throw new NotFoundError('Order');
    const amend: AmendRequest = {
      optionId: order.option_id,
      orderId,
      action: order.action,
      remainingQuantity: changes.remainingQuantity ?? null,
      priceCents: changes.priceCents ?? null,
      clientOrderId: changes.clientOrderId ?? null,
      placedBy: context.placedBy,
      keyLimits: context.keyLimits ?? null,
    };
    const { idempotencyKey: key } = context;
    const answered = await this.held.answeredKeys(userId, [key]);
    await (context.charge ?? chargeNothing)(answered.size === 0 ? 1 : 0);
    const requestHash = key
      ? hashOf(['amend', orderId, amend.remainingQuantity, amend.priceCents, amend.clientOrderId])
      : '';
    const request: BookRequest = { type: 'amend', userId, request: amend, key, requestHash };
    const need = key !== null && answered.has(key) ? null : this.amendNeed(order, amend);
    const [outcome] = await this.held.withCollateral(
      userId,
      [{ optionId: order.option_id, request, need }],
      (entries) => this.route.all(entries),
    );
    return answerOf(outcome) as PlaceResult;
  }

  /**
   * What an amend may need on top of what its order holds: a repriced or larger BUY's worst case less the order's
   * collateral, which its market frees first (a shrink at the same price needs nothing).
   */
  private amendNeed(order: OrderRow, amend: AmendRequest): MarketNeed | null {
    const left = order.quantity - order.filled_quantity;
    const priceCents = amend.priceCents ?? order.price_cents;
    const quantity = amend.remainingQuantity ?? left;
    if (priceCents === order.price_cents && quantity <= left) return null;
    const replacement = { action: order.action, priceCents, quantity };
    const need = amendWorstCase(replacement, order.reserved_cents, this.settings.takerFeeBps);
    return { market: `option:${order.option_id}`, ...need };
  }

  /**
   * Converts shares between the options of an exclusive event (or splits cash into, or merges shares out of, one
   * YES of every option), through the event's market like an order. With an Idempotency-Key, a retry returns the
   * first result and never converts twice.
   */
  async convert(
    userId: number,
    eventId: number,
    conversion: { kind: ConversionKind; optionIds: number[]; quantity: number },
    idempotencyKey: string | null,
  ): Promise<PlaceResult> {
    if (conversion.quantity > this.settings.maxOrderQuantity) {
      throw new ValidationError(`quantity may be at most ${this.settings.maxOrderQuantity}`, [
        { field: 'body.quantity', message: `must be <= ${this.settings.maxOrderQuantity}` },
      ]);
    }
    const event = await this.trading.eventKind(this.db, eventId);
    if (!event) throw new NotFoundError('Event');
    if (!event.exclusive) throw new EventNotExclusiveError();
    const request = {
      ...conversion,
      userId,
      optionIds: conversion.kind === 'convert' ? conversion.optionIds : [],
    };
    const requestHash = idempotencyKey
      ? hashOf([
          'convert',
          eventId,
          request.kind,
          [...request.optionIds].sort((a, b) => a - b),
          request.quantity,
        ])
      : '';
    const convert: BookRequest = { type: 'convert', userId, request, key: idempotencyKey, requestHash };
    const answered = await this.held.answeredKeys(userId, [idempotencyKey]);
    const cents = request.kind === 'split' ? splitCost(request.quantity) : 0;
    const need =
      idempotencyKey !== null && answered.has(idempotencyKey) ? null : { market: `event:${eventId}`, cents };
    const market: MarketRef = { kind: 'event', eventId };
    const [outcome] = await this.held.withCollateral(userId, [{ request: convert, need }], ([entry]) =>
      entry && 'request' in entry
        ? this.route.toMarket(market, entry.request).then(
            (result) => [{ result }],
            (error: unknown) => [{ error }],
          )
        : Promise.resolve([entry ?? { error: new Error('no conversion') }]),
    );
    return answerOf(outcome) as PlaceResult;
  }

  /**
   * Places an order inside a transaction the caller holds (a protective sell triggered by another order's fill,
   * under the same option lock). Listeners run for it as for any order; a refusal is thrown.
   */
  async placeInTransaction(trx: Tx, userId: number, request: OrderRequest): Promise<PlacedOrderView> {
    // A purchase's cash is set aside by its user's collateral step, which no market's transaction may take.
    if (request.action !== 'SELL') throw new Error('only a sale is placed inside a market transaction');
    const [result] = await this.route.inTransaction(trx, request.optionId, [
      { type: 'place', userId, request, key: null, requestHash: '' },
    ]);
    return (result as PlaceResult).body as PlacedOrderView;
  }

  /**
   * Stops trading in an option's market (market close): every resting order is cancelled, inside the caller's
   * transaction (for an exclusive event, in all its options at once).
   */
  async closeOption(trx: Tx, optionId: number): Promise<number> {
    const [closed] = await this.route.inTransaction(trx, optionId, [{ type: 'close' }]);
    return closed as number;
  }

  /**
   * Takes the locks of every market of an event, in the order the order pipeline takes them (option ids), so that a
   * lifecycle change (resolution, settlement) never waits on a batch that waits on it.
   */
  async lockEventMarkets(trx: Tx, eventId: number): Promise<void> {
    await this.trading.lockMarket(trx, { kind: 'event', eventId });
  }
}

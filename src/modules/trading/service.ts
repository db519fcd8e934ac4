import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ConversionKind } from '../../exchange/conversions.js';
import { ladderLevels, restingLevelsOf } from '../../exchange/ladder.js';
import type { JournalEntry, Posting } from '../../exchange/ledger.js';
import type { Side } from '../../exchange/money.js';
import {
  EMPTY_POSITION,
  type Outcome,
  type PositionState,
  settlePosition,
} from '../../exchange/positions.js';
import type { DB } from '../../platform/db/schema.js';
import type { Tx } from '../../platform/db/types.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import type { Metrics } from '../../platform/metrics.js';
import type { LedgerRepository } from '../ledger/repository.js';
import { BookCache } from './books.js';
import { MarketDirectory } from './directory.js';
import {
  EventNotExclusiveError,
  IdempotencyMismatchError,
  OrderNotOpenError,
  ReplayedRefusalError,
} from './errors.js';
import { IdempotencyRaceError } from './idempotency.js';
import { OrderPipeline, type WarnLog } from './pipeline.js';
import {
  type MarketRef,
  marketKey,
  type OrderFilter,
  type RestingOrderFilter,
  type TradeFilter,
  type TradingRepository,
} from './repository.js';
import { eventHouseOf, houseMakerOf, positionStateOf } from './rows.js';
import { checkOrderTerms } from './terms.js';
import {
  type AmendListener,
  type AmendRequest,
  type BookListener,
  type BookOutcome,
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
import { type serialisePlaced, type toOrderView, toPositionView } from './views.js';

export type PlacedOrderView = ReturnType<typeof serialisePlaced>;

/**
 * Takes what a request's new orders cost from the caller's order budget, or throws its refusal; called once the
 * service knows how many of them are new (not retries answered from their idempotency keys).
 */
export type ChargeOrders = (orders: number) => Promise<void>;
const chargeNothing: ChargeOrders = async () => {};

/** The most requests one batch of the pipeline takes; more wait for the next batch. */
const PIPELINE_BATCH_LIMIT = 256;

/**
 * Trading: orders placed and cancelled, expiries, market close, settlement, and the reads of orders, trades,
 * positions and books. Every change to a book goes through the order pipeline (pipeline.ts: load under the option
 * lock → decide in src/exchange/decision.ts → write → answer → announce); nothing else decides an order's fate.
 */
export class TradingService {
  private readonly listeners = new TradingListeners();
  private readonly pipeline: OrderPipeline;
  private readonly markets: MarketDirectory;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly trading: TradingRepository,
    private readonly ledger: LedgerRepository,
    settings: TradingSettings,
    observe: { log: WarnLog; metrics: Metrics | null },
  ) {
    this.pipeline = new OrderPipeline(
      db,
      trading,
      ledger,
      new BookCache(trading, settings.booksInMemory),
      this.listeners,
      { ...settings, maxBatchOrders: PIPELINE_BATCH_LIMIT },
      observe.log,
      observe.metrics,
    );
    this.markets = new MarketDirectory(db, trading);
    this.settings = settings;
  }

  private readonly settings: TradingSettings;

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
    await charge(await this.unanswered(userId, [key]));
    return (await this.settleOn(request.optionId, placeRequest(userId, request, key))) as PlaceResult;
  }

  /**
   * Places a batch of orders, each decided as if placed alone, in the order given, each with its own answer (its
   * result, or the error it met). Consecutive orders of one market ride that market's next batch together, in
   * one transaction; the runs of different markets go one after another. With an Idempotency-Key the batch is
   * claimed under it first (another batch under the same key is refused whole), and each order is idempotent under
   * the key and its place in the batch, so a retry answers what each order got the first time (placed or refused)
   * and decides only the orders never decided (a crash between two markets' transactions). `charge` is given how
   * many orders are new, before any is queued.
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
      claim = await this.trading.claimIdempotencyKey(this.db, userId, `batch ${idempotencyKey}`, fingerprint);
      if (claim === 'mismatch') throw new IdempotencyMismatchError();
    }
    // A batch claimed just now has placed nothing yet; a retry pays only for what it has not placed before.
    await charge(
      claim === 'new' && idempotencyKey !== null ? items.length : await this.unanswered(userId, keys),
    );
    const now = new Date();
    const requests = items.map((item, index) => {
      if ('error' in item) return item;
      try {
        checkOrderTerms(item.order, this.settings.maxOrderQuantity, now);
      } catch (error) {
        return { error };
      }
      return {
        optionId: item.order.optionId,
        request: placeRequest(userId, item.order, keys[index] ?? null),
      };
    });
    const outcomes = await this.settleInRuns(requests);
    const replayed =
      outcomes.length > 0 &&
      outcomes.every((o) =>
        'result' in o ? (o.result as PlaceResult).replayed : o.error instanceof ReplayedRefusalError,
      );
    return { outcomes: outcomes as ({ result: PlaceResult } | { error: unknown })[], replayed };
  }

  /**
   * Cancels a user's orders by id, each with its own answer: the cancelled order, or why not (404 for an order that
   * is not theirs or does not exist, 409 ORDER_NOT_OPEN for one no longer open).
   */
  async cancelOrders(
    userId: number,
    orderIds: number[],
  ): Promise<({ result: unknown } | { error: unknown })[]> {
    const found = new Map(
      (await this.trading.ordersOfUser(this.db, userId, orderIds)).map((row) => [row.id, row]),
    );
    return this.settleInRuns(
      orderIds.map((orderId) => {
        const order = found.get(orderId);
        if (!order) return { error: new NotFoundError('Order') };
        const cancel: BookRequest = { type: 'cancel', userId, optionId: order.option_id, orderId };
        return { optionId: order.option_id, request: cancel };
      }),
    );
  }

  /**
   * Cancels every resting order of a user that the filter takes (all of them with none), through the pipeline like
   * single cancels; answers the orders it cancelled. An order that ended meanwhile (filled, cancelled elsewhere) is
   * simply not among them.
   */
  async cancelAll(
    userId: number,
    filter: RestingOrderFilter,
    reason?: 'heartbeat_lapsed',
  ): Promise<ReturnType<typeof toOrderView>[]> {
    const resting = await this.trading.restingOrdersOfUser(this.db, userId, filter);
    const cancelled: ReturnType<typeof toOrderView>[] = [];
    // In slices, so that a user with thousands of orders never fills a market's queue.
    for (let at = 0; at < resting.length; at += PIPELINE_BATCH_LIMIT) {
      const slice = resting.slice(at, at + PIPELINE_BATCH_LIMIT).map((order) => ({
        optionId: order.option_id,
        request: {
          type: 'cancel',
          userId,
          optionId: order.option_id,
          orderId: order.id,
          reason,
        } as BookRequest,
      }));
      for (const outcome of await this.settleInRuns(slice, true)) {
        if ('result' in outcome) cancelled.push(outcome.result as ReturnType<typeof toOrderView>);
        else if (!(outcome.error instanceof OrderNotOpenError)) throw outcome.error;
      }
    }
    return cancelled;
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
    context: { idempotencyKey: string | null; placedBy: string | null; charge?: ChargeOrders },
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
    };
    const { idempotencyKey: key } = context;
    await (context.charge ?? chargeNothing)(await this.unanswered(userId, [key]));
    const requestHash = key
      ? hashOf(['amend', orderId, amend.remainingQuantity, amend.priceCents, amend.clientOrderId])
      : '';
    const request: BookRequest = { type: 'amend', userId, request: amend, key, requestHash };
    return (await this.settleOn(order.option_id, request)) as PlaceResult;
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
    return (await this.settleIn({ kind: 'event', eventId }, convert)) as PlaceResult;
  }

  /**
   * Places an order inside a transaction the caller holds (a protective sell triggered by another order's fill,
   * under the same option lock). Listeners run for it as for any order; a refusal is thrown.
   */
  async placeInTransaction(trx: Tx, userId: number, request: OrderRequest): Promise<PlacedOrderView> {
    const [outcome] = await this.pipeline.runInTransaction(
      trx,
      await this.markets.of(request.optionId, trx),
      [{ type: 'place', userId, request, key: null, requestHash: '' }],
    );
    return (resultOf(outcome) as PlaceResult).body as PlacedOrderView;
  }

  /** Cancels a user's open limit order and releases what it held. */
  async cancelOrder(userId: number, orderId: number): Promise<ReturnType<typeof toOrderView>> {
    const order = await this.trading.findOrder(this.db, orderId);
    if (!order || order.user_id !== userId) throw new NotFoundError('Order');
    const cancel: BookRequest = { type: 'cancel', userId, optionId: order.option_id, orderId };
    return (await this.settleOn(order.option_id, cancel)) as ReturnType<typeof toOrderView>;
  }

  /** Expires orders past their time, in their options' next batches; any instance may run it. */
  async expireDueOrders(limit = 100): Promise<number> {
    const due = await this.trading.dueExpiries(this.db, limit);
    const expired = await Promise.all(
      due.map((order) =>
        this.settleOn(order.option_id, { type: 'expire', optionId: order.option_id, orderId: order.id }),
      ),
    );
    return expired.reduce((sum: number, count) => sum + (count as number), 0);
  }

  /**
   * Stops trading in an option's market (market close): every resting order is cancelled, inside the caller's
   * transaction (for an exclusive event, in all its options at once).
   */
  async closeOption(trx: Tx, optionId: number): Promise<number> {
    const [outcome] = await this.pipeline.runInTransaction(trx, await this.markets.of(optionId, trx), [
      { type: 'close' },
    ]);
    return resultOf(outcome) as number;
  }

  /**
   * Takes the locks of every market of an event, in the order the order pipeline takes them (option ids), so that a
   * lifecycle change (resolution, settlement) never waits on a batch that waits on it.
   */
  async lockEventMarkets(trx: Tx, eventId: number): Promise<void> {
    await this.trading.lockMarket(trx, { kind: 'event', eventId });
  }

  /** A request about an option, through its market's queue: its answer, or its refusal thrown. */
  private async settleOn(optionId: number, request: BookRequest): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.run(await this.markets.of(optionId), request);
      if (!('reroute' in outcome) || attempt >= 2) return resultOf(outcome);
      // Its event's kind changed since this instance last looked (a draft made exclusive, or not).
      this.markets.forget(optionId);
    }
  }

  /**
   * How many of a request's orders would be placed anew: those whose idempotency key (null: none) has no stored
   * answer. An order answered from its key is a retry, and costs nothing of the order budget.
   */
  private async unanswered(userId: number, keys: (string | null)[]): Promise<number> {
    const named = keys.filter((key): key is string => key !== null);
    if (named.length === 0) return keys.length;
    const stored = await this.trading.findIdempotencyKeys(
      this.db,
      named.map((key) => ({ userId, key })),
    );
    return keys.length - stored.length;
  }

  /**
   * Requests about options, each with its own answer or refusal (an entry that is already an error stays one).
   * Consecutive requests of one market are queued together, so they ride one batch in their order; runs of
   * different markets go one after another, or (`parallel`, when their order does not matter) all at once.
   */
  private async settleInRuns(
    entries: ({ optionId: number; request: BookRequest } | { error: unknown })[],
    parallel = false,
  ): Promise<({ result: unknown } | { error: unknown })[]> {
    const refs = await Promise.all(
      entries.map((entry) => ('request' in entry ? this.markets.of(entry.optionId) : null)),
    );
    const outcomes: ({ result: unknown } | { error: unknown })[] = [];
    const runs: { ref: MarketRef; indexes: number[] }[] = [];
    entries.forEach((entry, index) => {
      const ref = refs[index];
      if (!('request' in entry) || !ref) {
        outcomes[index] = entry as { error: unknown };
        return;
      }
      const last = runs[runs.length - 1];
      if (last && marketKey(last.ref) === marketKey(ref)) last.indexes.push(index);
      else runs.push({ ref, indexes: [index] });
    });
    // Each request of a run is queued before the next is: they ride the market's batch in their order.
    const settleRun = ({ ref, indexes }: { ref: MarketRef; indexes: number[] }) =>
      Promise.all(
        indexes.map((index) => {
          const { optionId, request } = entries[index] as { optionId: number; request: BookRequest };
          return this.settleVia(ref, optionId, request).then(
            (result) => {
              outcomes[index] = { result };
            },
            (error: unknown) => {
              outcomes[index] = { error };
            },
          );
        }),
      );
    if (parallel) await Promise.all(runs.map(settleRun));
    else for (const run of runs) await settleRun(run);
    return outcomes;
  }

  /** A request about an option, through the market it was found in: its answer, or its refusal thrown. */
  private async settleVia(ref: MarketRef, optionId: number, request: BookRequest): Promise<unknown> {
    const outcome = await this.run(ref, request);
    if ('reroute' in outcome) return this.settleOn(optionId, request);
    return resultOf(outcome);
  }

  /** A request about a market, through its queue: its answer, or its refusal thrown. */
  private async settleIn(ref: MarketRef, request: BookRequest): Promise<unknown> {
    return resultOf(await this.run(ref, request));
  }

  private async run(ref: MarketRef, request: BookRequest): Promise<BookOutcome> {
    let outcome = await this.pipeline.submit(ref, request);
    // Handed back by its batch: run it on its own (a second try replays an answer stored meanwhile).
    for (let attempt = 0; 'alone' in outcome; attempt++) {
      outcome = await this.pipeline.alone(ref, request).catch((error: unknown) => {
        if (error instanceof IdempotencyRaceError && attempt === 0) return { alone: true as const };
        throw error;
      });
    }
    return outcome;
  }

  /**
   * An option's book as it stands, the one read behind the order book and the stream's snapshot: every level with
   * resting orders or a house quote (the house quotes only while the market is open), bids then asks, best first.
   */
  async book(optionId: number) {
    const found = await this.trading.bookAt(this.db, optionId);
    if (!found) return null;
    const { option, levels, makers } = found;
    const maker = option.exclusive
      ? (eventHouseOf(option.event_liquidity_b, makers)?.quote(option.id) ?? null)
      : houseMakerOf(option);
    const house = option.event_status === 'open' ? maker : null;
    return { option, levels: ladderLevels(restingLevelsOf(levels), house) };
  }

  /**
   * What settling an option as `outcome` would pay, by the same rule as `settleOption`, without paying it: to
   * holders (and which users they are) and to the house maker.
   */
  async previewSettlement(
    option: { id: number; amm_yes_shares: number; amm_no_shares: number },
    outcome: Outcome,
  ): Promise<{ holderIds: number[]; payoutCents: number; housePayoutCents: number }> {
    const holders = await this.trading.holdersOf(this.db, option.id, false);
    let payoutCents = 0;
    for (const row of holders)
      payoutCents += settlePosition(positionStateOf(row), row.side, outcome).payoutCents;
    const housePayoutCents = housePayoutOf(option, outcome);
    return { holderIds: [...new Set(holders.map((row) => row.user_id))], payoutCents, housePayoutCents };
  }

  /**
   * Settles an option under its lock: every holder is paid from escrow (100 a winning share, 50 a share of
   * either side for VOID), the house maker's inventory likewise, and each holder's result is recorded.
   */
  async settleOption(trx: Tx, optionId: number, eventId: number, outcome: Outcome) {
    const market = await this.trading.lockMarket(trx, { kind: 'option', optionId });
    const option = market?.options[0];
    if (!option) throw new NotFoundError('Option');
    const holders = await this.trading.holdersOf(trx, optionId);
    const postings: Posting[] = [];
    const settled: { userId: number; optionId: number; side: Side; state: PositionState }[] = [];
    const records = [];
    let escrowOut = 0;
    for (const row of holders) {
      const { position, payoutCents } = settlePosition(positionStateOf(row), row.side, outcome);
      settled.push({ userId: row.user_id, optionId, side: row.side, state: position });
      records.push({
        userId: row.user_id,
        optionId,
        eventId,
        side: row.side,
        outcome,
        quantity: row.quantity,
        payoutCents,
        pnlCents: payoutCents - row.cost_cents,
      });
      if (payoutCents > 0)
        postings.push({ account: { kind: 'cash', userId: row.user_id }, amount: payoutCents });
      escrowOut += payoutCents;
    }
    const ammPayout = housePayoutOf(option, outcome);
    if (ammPayout > 0) postings.push({ account: { kind: 'amm' }, amount: ammPayout });
    const poolPayout = inventoryPayout(option.pool_yes_shares, option.pool_no_shares, outcome);
    if (poolPayout > 0) postings.push({ account: { kind: 'conversion', eventId }, amount: poolPayout });
    escrowOut += ammPayout + poolPayout;
    if (escrowOut > 0) postings.push({ account: { kind: 'escrow', optionId }, amount: -escrowOut });
    const entry: JournalEntry = {
      kind: 'settlement',
      memo: `Settlement of option ${optionId} (${option.label}) as ${outcome}`,
      ref: { type: 'option', id: optionId },
      postings,
    };
    await this.ledger.post(trx, entry);
    await this.trading.savePositions(trx, settled);
    await this.trading.insertSettlements(trx, records);
    await this.trading.settleHouse(trx, optionId, ammPayout);
    return records;
  }

  hasHeldPosition(trx: Tx, userId: number, eventId: number): Promise<boolean> {
    return this.trading.hasHeldPosition(trx, userId, eventId);
  }

  listOrders(userId: number, filter: OrderFilter, beforeId: number | null, limit: number) {
    return this.trading.listOrders(this.db, userId, filter, beforeId, limit);
  }

  listConversions(userId: number, eventSlug: string | undefined, beforeId: number | null, limit: number) {
    return this.trading.listConversions(this.db, userId, eventSlug, beforeId, limit);
  }

  listTrades(userId: number, filter: TradeFilter, beforeId: number | null, limit: number) {
    return this.trading.listTrades(this.db, userId, filter, beforeId, limit);
  }

  /** Positions valued at their side's last traded price, and the portfolio summary. */
  async portfolio(userId: number) {
    const [positions, balances, realizedPnlCents, openOrders] = await Promise.all([
      this.trading.positionsOf(this.db, userId),
      this.ledger.userBalances(this.db, userId),
      this.trading.realizedPnl(this.db, userId),
      this.trading.openOrderCount(this.db, userId),
    ]);
    const data = positions.map(toPositionView);
    const positionsValueCents = data.reduce((sum, p) => sum + p.valueCents, 0);
    return {
      data,
      summary: {
        cashCents: balances.cashCents,
        reservedCents: balances.reservedCents,
        positionsValueCents,
        totalValueCents: balances.cashCents + balances.reservedCents + positionsValueCents,
        realizedPnlCents,
        unrealizedPnlCents: data.reduce((sum, p) => sum + p.unrealizedPnlCents, 0),
        openOrders,
      },
    };
  }
}

/** What the house market maker's inventory of an option pays when it settles as `outcome`. */
function housePayoutOf(option: { amm_yes_shares: number; amm_no_shares: number }, outcome: Outcome): number {
  return inventoryPayout(option.amm_yes_shares, option.amm_no_shares, outcome);
}

/** What YES and NO shares of an option pay when it settles as `outcome`. */
function inventoryPayout(yesShares: number, noShares: number, outcome: Outcome): number {
  return (
    settlePosition({ ...EMPTY_POSITION, quantity: yesShares }, 'YES', outcome).payoutCents +
    settlePosition({ ...EMPTY_POSITION, quantity: noShares }, 'NO', outcome).payoutCents
  );
}

function resultOf(outcome: BookOutcome | undefined): unknown {
  if (!outcome || 'alone' in outcome || 'reroute' in outcome)
    throw new Error('a book request was left without an answer');
  if ('error' in outcome) throw outcome.error;
  return outcome.result;
}

/** An order's request to the pipeline, with its idempotency key (only a keyed request is ever compared). */
function placeRequest(userId: number, request: OrderRequest, key: string | null): BookRequest {
  return { type: 'place', userId, request, key, requestHash: key ? hashRequest(request) : '' };
}

/** The key an order is idempotent under without an Idempotency-Key: its clientOrderId, if any. */
function clientOrderKey(request: OrderRequest): string | null {
  return request.clientOrderId ? `clientOrderId:${request.clientOrderId}` : null;
}

function hashRequest(request: OrderRequest): string {
  return hashOf([
    request.optionId,
    request.kind,
    request.side,
    request.action,
    request.quantity,
    request.priceCents,
    request.expiresInHours ?? null,
    request.clientOrderId ?? null,
    // Absent on the requests keyed before they existed, so that their stored fingerprints still match.
    ...(request.timeInForce || request.postOnly || request.expiresAt
      ? [request.timeInForce ?? null, request.postOnly ?? false, request.expiresAt?.getTime() ?? null]
      : []),
  ]);
}

/** The fingerprint of a request an idempotency key is compared by. */
function hashOf(canonical: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

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
import { EventNotExclusiveError } from './errors.js';
import { IdempotencyRaceError, OrderPipeline, type WarnLog } from './pipeline.js';
import type { MarketRef, OrderFilter, TradeFilter, TradingRepository } from './repository.js';
import { eventHouseOf, houseMakerOf, positionStateOf } from './rows.js';
import {
  type BookListener,
  type BookOutcome,
  type BookRequest,
  type ConversionListener,
  type EndListener,
  type OrderListener,
  type OrderRequest,
  type PlaceResult,
  TradingListeners,
  type TradingSettings,
} from './types.js';
import { type serialisePlaced, type toOrderView, toPositionView } from './views.js';

export type PlacedOrderView = ReturnType<typeof serialisePlaced>;

/** The most requests one batch of an option takes; more wait for the next batch. */
const MAX_BATCH_ORDERS = 256;

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
      { ...settings, maxBatchOrders: MAX_BATCH_ORDERS },
      observe.log,
      observe.metrics,
    );
    this.markets = new MarketDirectory(db, trading);
    this.settings = settings;
  }

  private readonly settings: TradingSettings;

  /** Called inside the transaction with every order it placed. */
  onOrderCommitted(listener: OrderListener): void {
    this.listeners.placed.push(listener);
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
  ): Promise<PlaceResult> {
    if (request.quantity > this.settings.maxOrderQuantity) {
      throw new ValidationError(`quantity may be at most ${this.settings.maxOrderQuantity}`, [
        { field: 'body.quantity', message: `must be <= ${this.settings.maxOrderQuantity}` },
      ]);
    }
    const key = idempotencyKey ?? (request.clientOrderId ? `clientOrderId:${request.clientOrderId}` : null);
    // Only a keyed request is ever compared with an earlier one.
    const requestHash = key ? hashRequest(request) : '';
    const place: BookRequest = { type: 'place', userId, request, key, requestHash };
    return (await this.settleOn(request.optionId, place)) as PlaceResult;
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
  ]);
}

/** The fingerprint of a request an idempotency key is compared by. */
function hashOf(canonical: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { executeMatch, positionKey } from '../../exchange/execution.js';
import type { JournalEntry, Posting } from '../../exchange/ledger.js';
import type { AmmState } from '../../exchange/lmsr.js';
import { matchOrder, takerStatus as statusAfterMatch } from '../../exchange/matching.js';
import { type Action, feeCents, type Side, sidePrice } from '../../exchange/money.js';
import { OrderBook, toLadder } from '../../exchange/order-book.js';
import {
  applyPositionChange,
  EMPTY_POSITION,
  type Outcome,
  type PositionState,
  settlePosition,
  valuePosition,
} from '../../exchange/positions.js';
import type { DB, OrderStatus } from '../../platform/db/schema.js';
import { isUniqueViolation, type Tx } from '../../platform/db/types.js';
import { InsufficientFundsError, NotFoundError, ValidationError } from '../../platform/errors.js';
import type { LedgerRepository } from '../ledger/repository.js';
import { type BatchOutcome, OrderBatches, type PlaceResult } from './batch.js';
import {
  IdempotencyMismatchError,
  InsufficientSharesError,
  MarketClosedError,
  NoLiquidityError,
  OrderNotOpenError,
} from './errors.js';
import {
  type LockedOption,
  OPEN_STATUSES,
  type OrderRow,
  type TradeRow,
  type TradingRepository,
} from './repository.js';
import { ammOf, positionMap, positionStateOf, releasePostings, reportedLevels } from './state.js';

export interface TradingSettings {
  takerFeeBps: number;
  maxOrderQuantity: number;
}

export interface OrderRequest {
  optionId: number;
  kind: 'market' | 'limit';
  side: Side;
  action: Action;
  quantity: number;
  priceCents: number;
  expiresInHours?: number | undefined;
  clientOrderId?: string | undefined;
}

export interface PlacedOrder {
  order: OrderRow & { event_slug: string; option_label: string };
  trades: TradeRow[];
  selfTradeCancelled: number[];
  bookVersion: number;
}

/** What a committed order changed, for listeners such as notifications, webhooks and market data. */
export interface OrderCommitted {
  optionId: number;
  eventId: number;
  order: OrderRow;
  trades: TradeRow[];
  makerOrders: OrderRow[];
  cancelledOrders: OrderRow[];
}

/** Called inside the transaction with every order it committed (one, or a whole batch in order). */
export type OrderListener = (trx: Tx, changes: OrderCommitted[]) => Promise<void>;

/** A level of the YES ladder as it stands after a change: user orders plus the house quote. */
export interface LadderLevel {
  side: 'bid' | 'ask';
  priceCents: number;
  quantity: number;
  orders: number;
  houseQuantity: number;
}

/** What one committed change did to an option's book: for market data. `bookVersion` rises by one each time. */
export interface BookChange {
  optionId: number;
  bookVersion: number;
  levels: LadderLevel[];
  fills: {
    id: number;
    yesPriceCents: number;
    quantity: number;
    takerSide: Side;
    takerAction: Action;
    at: string;
  }[];
}

export type BookListener = (trx: Tx, change: BookChange) => Promise<void>;
export type CancelListener = (
  trx: Tx,
  orders: OrderRow[],
  reason: 'cancelled' | 'expired' | 'market_closed',
) => Promise<void>;

/** The most orders one batch of an option takes; more wait for the next batch. */
const MAX_BATCH_ORDERS = 256;

/**
 * The life of an order. Every change to an option's book runs in one transaction under that option's row
 * lock: check collateral, match against the book and the house maker, write fills, trades, positions and one
 * ledger entry per order, then rest or cancel the remainder. Orders sent over the API go through the batched
 * path (batch.ts): the orders of one option that arrive while its previous batch is being written are matched
 * in memory and committed together. Nothing is acknowledged before it is committed.
 */
export class TradingService {
  private readonly orderListeners: OrderListener[] = [];
  private readonly cancelListeners: CancelListener[] = [];
  private readonly bookListeners: BookListener[] = [];

  private readonly batches: OrderBatches;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly trading: TradingRepository,
    private readonly ledger: LedgerRepository,
    private readonly settings: TradingSettings,
  ) {
    this.batches = new OrderBatches(
      db,
      trading,
      ledger,
      { ...settings, maxBatchOrders: MAX_BATCH_ORDERS },
      {
        bookChanged: async (trx, change) => {
          for (const listener of this.bookListeners) await listener(trx, change);
        },
        ordersCommitted: async (trx, changes) => {
          for (const listener of this.orderListeners) await listener(trx, changes);
        },
        serialise: serialisePlaced,
      },
    );
  }

  onOrderCommitted(listener: OrderListener): void {
    this.orderListeners.push(listener);
  }

  onOrdersCancelled(listener: CancelListener): void {
    this.cancelListeners.push(listener);
  }

  /** Called inside the transaction of every change to a book, with the levels it changed. */
  onBookChanged(listener: BookListener): void {
    this.bookListeners.push(listener);
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
    // The batched path; when a batch cannot be written as a whole (say, a clientOrderId already taken), its
    // orders are placed one by one, each in its own transaction, with the same answers.
    const outcome: BatchOutcome = await this.batches
      .submit(request.optionId, { userId, request, key, requestHash })
      .catch(() => ({ alone: true }));
    if ('result' in outcome) return outcome.result;
    if ('error' in outcome) throw outcome.error;
    return this.placeAlone(userId, request, key, requestHash);
  }

  /** Places one order in its own transaction. */
  private placeAlone(
    userId: number,
    request: OrderRequest,
    key: string | null,
    requestHash: string,
  ): Promise<PlaceResult> {
    return this.db.transaction().execute(async (trx) => {
      if (key) {
        const previous = await this.trading.claimIdempotencyKey(trx, userId, key, requestHash);
        if (previous) {
          if (previous.request_hash !== requestHash) throw new IdempotencyMismatchError();
          return { status: previous.status_code ?? 201, body: previous.response, replayed: true };
        }
      }
      const response = serialisePlaced(await this.placeInTransaction(trx, userId, request));
      if (key) await this.trading.completeIdempotencyKey(trx, userId, key, 201, response);
      return { status: 201, body: response, replayed: false };
    });
  }

  /**
   * Places an order inside a transaction the caller already holds (for example a protective sell triggered by
   * another order's fill, under the same option lock). Listeners run for it as for any order.
   */
  async placeInTransaction(trx: Tx, userId: number, request: OrderRequest): Promise<PlacedOrder> {
    const option = await this.trading.lockOption(trx, request.optionId);
    if (!option) throw new NotFoundError('Option');
    assertTradable(option);

    const { side, action, quantity, priceCents } = request;
    if (action === 'BUY') {
      const needed = priceCents * quantity + feeCents(priceCents * quantity, this.settings.takerFeeBps);
      const cash = await this.trading.cashBalance(trx, userId);
      if (cash < needed) throw new InsufficientFundsError(needed, cash);
    } else {
      const held = await this.trading.lockPosition(trx, userId, option.id, side);
      const available = held ? held.quantity - held.reserved_quantity : 0;
      if (available < quantity) throw new InsufficientSharesError(quantity, available);
    }

    const ladder = toLadder(side, action, priceCents);
    const order = await this.trading
      .insertOrder(trx, {
        userId,
        optionId: option.id,
        kind: request.kind,
        side,
        action,
        priceCents,
        ...ladder,
        quantity,
        clientOrderId: request.clientOrderId ?? null,
        expiresAt: request.expiresInHours ? new Date(Date.now() + request.expiresInHours * 3_600_000) : null,
      })
      .catch((error: unknown) => {
        // A clientOrderId is unique per user: reusing it under another Idempotency-Key is a conflicting request.
        if (isUniqueViolation(error, 'orders_client_order_id_idx')) throw new IdempotencyMismatchError();
        throw error;
      });

    const opposite = ladder.bookSide === 'bid' ? 'ask' : 'bid';
    const resting = await this.trading.crossingOrders(
      trx,
      option.id,
      opposite,
      ladder.bookPrice,
      quantity,
      userId,
    );
    const book = new OrderBook(resting);
    const amm = ammOf(option);
    const ammBefore = amm ? { ...amm } : null;
    const match = matchOrder(book, amm, {
      id: order.id,
      userId,
      side,
      action,
      limitPrice: priceCents,
      quantity,
    });
    if (request.kind === 'market' && match.filledQuantity === 0) throw new NoLiquidityError();

    const restingQuantity = request.kind === 'limit' ? match.remaining : 0;
    const execution = executeMatch(
      option.id,
      { orderId: order.id, userId, side, action, limitPrice: priceCents, quantity },
      match,
      { feeBps: this.settings.takerFeeBps, restingQuantity },
    );

    // Self-trade prevention: the taker's own resting orders it met are cancelled and release what they held.
    const selfCancelled = await this.trading.findOrders(
      trx,
      match.selfTradeCancels.map((o) => o.id),
    );
    const postings: Posting[] = [...execution.postings, ...releasePostings(selfCancelled)];
    await this.ledger.post(trx, {
      kind: 'order',
      memo: `${request.kind} order ${order.id}: ${action} ${quantity} ${side} @ ${priceCents}`,
      userId,
      ref: { type: 'order', id: order.id },
      postings,
    });

    // Positions of everyone who traded, plus shares released by self-trade cancels.
    const changes = [...execution.positionChanges.values()];
    const releasedShares = sharesToRelease(selfCancelled);
    const holders = [...new Set([...changes.map((c) => c.userId), ...releasedShares.map((r) => r.userId)])];
    const current = positionMap(await this.trading.lockPositions(trx, option.id, holders));
    const next = new Map<string, { userId: number; side: Side; state: PositionState }>();
    const stateOf = (owner: number, held: Side) =>
      next.get(positionKey(owner, held))?.state ?? current.get(positionKey(owner, held)) ?? EMPTY_POSITION;
    for (const r of releasedShares) {
      const state = stateOf(r.userId, r.side);
      next.set(positionKey(r.userId, r.side), {
        userId: r.userId,
        side: r.side,
        state: { ...state, reservedQuantity: state.reservedQuantity - r.quantity },
      });
    }
    for (const c of changes) {
      next.set(positionKey(c.userId, c.side), {
        userId: c.userId,
        side: c.side,
        state: applyPositionChange(stateOf(c.userId, c.side), c.change),
      });
    }
    await this.trading.savePositions(trx, option.id, [...next.values()]);

    // Fills and trades.
    const fillRows = await this.trading.insertFills(
      trx,
      option.id,
      order.id,
      match.fills.map((fill) => ({
        yesPrice: fill.yesPrice,
        quantity: fill.quantity,
        kind: fill.kind,
        makerOrderId: fill.maker.kind === 'order' ? fill.maker.order.id : null,
      })),
    );
    const trades = await this.trading.insertTrades(
      trx,
      option.id,
      option.event_id,
      fillRows.map((f) => f.id),
      execution.trades,
    );

    // Orders: the makers, the self-trade cancels and the taker itself.
    const makerRows = await this.trading.findOrders(
      trx,
      execution.makerUpdates.map((u) => u.orderId),
    );
    const makerOutcomes = execution.makerUpdates.map((update) => {
      const row = makerRows.find((r) => r.id === update.orderId) as OrderRow;
      const filled = row.filled_quantity + update.filledQuantity;
      return {
        id: row.id,
        filledQuantity: filled,
        reservedCents: row.reserved_cents - update.reservedSpentCents,
        status: (filled === row.quantity ? 'filled' : 'partially_filled') as OrderStatus,
        cancelReason: null,
      };
    });
    const takerStatus: OrderStatus = statusAfterMatch(match, restingQuantity);
    await this.trading.updateOrders(trx, [
      ...makerOutcomes,
      ...selfCancelled.map((row) => ({
        id: row.id,
        filledQuantity: row.filled_quantity,
        reservedCents: 0,
        status: 'cancelled' as OrderStatus,
        cancelReason: 'self_trade_prevented',
      })),
      {
        id: order.id,
        filledQuantity: match.filledQuantity,
        reservedCents: execution.takerRestingReserveCents,
        status: takerStatus,
        cancelReason: takerStatus === 'cancelled' ? 'unfilled_remainder' : null,
      },
    ]);

    const bookVersion = await this.trading.updateOptionAfterMatch(trx, option.id, {
      ammYesShares: amm?.yesShares ?? option.amm_yes_shares,
      ammNoShares: amm?.noShares ?? option.amm_no_shares,
      pairsMinted: execution.pairsMinted,
      pairsMerged: execution.pairsMerged,
      volumeShares: execution.volumeShares,
      volumeCents: execution.takerNotionalCents,
      lastYesPrice: execution.lastYesPrice,
    });

    const finalOrder: OrderRow = {
      ...order,
      filled_quantity: match.filledQuantity,
      reserved_cents: execution.takerRestingReserveCents,
      status: takerStatus,
      cancel_reason: takerStatus === 'cancelled' ? 'unfilled_remainder' : null,
    };
    const cancelledRows = selfCancelled.map((row) => ({
      ...row,
      status: 'cancelled' as OrderStatus,
      reserved_cents: 0,
    }));
    if (this.bookListeners.length) {
      const touched = new Set<string>();
      for (const fill of match.fills)
        if (fill.maker.kind === 'order') touched.add(`${opposite}:${fill.yesPrice}`);
      if (restingQuantity > 0) touched.add(`${ladder.bookSide}:${ladder.bookPrice}`);
      for (const row of selfCancelled) touched.add(`${row.book_side}:${row.book_price}`);
      const levels = await this.levelsAfter(trx, option.id, touched, amm, ammBefore);
      const fills = match.fills.map((fill, index) => ({
        id: fillRows[index]?.id as number,
        yesPriceCents: fill.yesPrice,
        quantity: fill.quantity,
        takerSide: side,
        takerAction: action,
        at: (fillRows[index]?.created_at ?? new Date()).toISOString(),
      }));
      for (const listener of this.bookListeners)
        await listener(trx, { optionId: option.id, bookVersion, levels, fills });
    }
    for (const listener of this.orderListeners) {
      await listener(trx, [
        {
          optionId: option.id,
          eventId: option.event_id,
          order: finalOrder,
          trades,
          makerOrders: makerRows.map((row) => {
            const outcome = makerOutcomes.find((o) => o.id === row.id);
            return outcome
              ? { ...row, filled_quantity: outcome.filledQuantity, status: outcome.status }
              : row;
          }),
          cancelledOrders: cancelledRows,
        },
      ]);
    }
    return {
      order: { ...finalOrder, event_slug: option.slug, option_label: option.label },
      trades,
      selfTradeCancelled: selfCancelled.map((row) => row.id),
      bookVersion,
    };
  }

  /**
   * The ladder levels a change touched, as they now stand: user orders at the touched prices, plus every price
   * where the house quote moved.
   */
  private async levelsAfter(
    trx: Tx,
    optionId: number,
    touched: Set<string>,
    amm: AmmState | null,
    ammBefore: AmmState | null,
  ): Promise<LadderLevel[]> {
    const levels = reportedLevels(touched, amm, ammBefore);
    const rows = await this.trading.levelsAt(
      trx,
      optionId,
      levels.filter((l) => l.side === 'bid').map((l) => l.priceCents),
      levels.filter((l) => l.side === 'ask').map((l) => l.priceCents),
    );
    const userAt = new Map(rows.map((row) => [`${row.book_side}:${row.book_price}`, row]));
    return levels.map((level) => {
      const user = userAt.get(`${level.side}:${level.priceCents}`);
      return {
        side: level.side,
        priceCents: level.priceCents,
        quantity: Number(user?.quantity ?? 0) + level.houseQuantity,
        orders: user?.orders ?? 0,
        houseQuantity: level.houseQuantity,
      };
    });
  }

  /** Cancels a user's open limit order and releases what it held. */
  async cancelOrder(userId: number, orderId: number) {
    return this.db.transaction().execute(async (trx) => {
      const found = await this.trading.findOrder(trx, orderId);
      if (!found || found.user_id !== userId) throw new NotFoundError('Order');
      await this.trading.lockOption(trx, found.option_id);
      const [order] = await this.trading.findOrders(trx, [orderId]);
      if (!order || !OPEN_STATUSES.includes(order.status))
        throw new OrderNotOpenError(order?.status ?? 'unknown');
      await this.releaseOrders(trx, [order], 'cancelled', 'cancelled_by_user');
      return (await this.trading.findOrderWithMarket(trx, orderId)) as NonNullable<
        Awaited<ReturnType<TradingRepository['findOrderWithMarket']>>
      >;
    });
  }

  /**
   * Ends open orders (cancel, expiry, market close): returns reserved cash to cash and reserved shares to the
   * holder, in one ledger entry, under the option lock the caller holds.
   */
  async releaseOrders(
    trx: Tx,
    orders: OrderRow[],
    status: 'cancelled' | 'expired',
    reason: string,
  ): Promise<OrderRow[]> {
    if (orders.length === 0) return [];
    const optionIds = [...new Set(orders.map((o) => o.option_id))];
    await this.ledger.post(trx, {
      kind: status === 'expired' ? 'order_expiry' : 'order_cancel',
      memo: `${status} ${orders.length} order(s): ${reason}`,
      ref: { type: 'order', id: orders[0]?.id as number },
      postings: releasePostings(orders),
    });
    for (const optionId of optionIds) {
      const released = sharesToRelease(orders.filter((o) => o.option_id === optionId));
      if (released.length) {
        const current = positionMap(
          await this.trading.lockPositions(
            trx,
            optionId,
            released.map((r) => r.userId),
          ),
        );
        await this.trading.savePositions(
          trx,
          optionId,
          released.map((r) => {
            const state = current.get(positionKey(r.userId, r.side)) ?? EMPTY_POSITION;
            return {
              userId: r.userId,
              side: r.side,
              state: { ...state, reservedQuantity: state.reservedQuantity - r.quantity },
            };
          }),
        );
      }
      const bumped = await this.trading.bumpBookVersion(trx, optionId);
      if (this.bookListeners.length) {
        const touched = new Set(
          orders.filter((o) => o.option_id === optionId).map((o) => `${o.book_side}:${o.book_price}`),
        );
        const amm =
          bumped.liquidity_b > 0
            ? {
                liquidityCents: bumped.liquidity_b,
                offset: bumped.amm_offset,
                yesShares: bumped.amm_yes_shares,
                noShares: bumped.amm_no_shares,
              }
            : null;
        const levels = await this.levelsAfter(trx, optionId, touched, amm, amm);
        for (const listener of this.bookListeners) {
          await listener(trx, { optionId, bookVersion: bumped.book_version, levels, fills: [] });
        }
      }
    }
    await this.trading.updateOrders(
      trx,
      orders.map((o) => ({
        id: o.id,
        filledQuantity: o.filled_quantity,
        reservedCents: 0,
        status,
        cancelReason: reason,
      })),
    );
    const ended = orders.map((o) => ({ ...o, status, reserved_cents: 0, cancel_reason: reason }));
    const kind =
      status === 'expired' ? 'expired' : reason === 'market_closed' ? 'market_closed' : 'cancelled';
    for (const listener of this.cancelListeners) await listener(trx, ended, kind);
    return ended;
  }

  /** Cancels every open order of an option (market close), taking the option lock. */
  async cancelAllOpenOrders(trx: Tx, optionId: number): Promise<number> {
    await this.trading.lockOption(trx, optionId);
    const open = await this.trading.openOrdersOf(trx, optionId);
    await this.releaseOrders(trx, open, 'cancelled', 'market_closed');
    return open.length;
  }

  /** Expires orders past their time; any instance may run it (the option lock decides who does each one). */
  async expireDueOrders(limit = 100): Promise<number> {
    const due = await this.trading.dueExpiries(this.db, limit);
    let expired = 0;
    for (const candidate of due) {
      expired += await this.db.transaction().execute(async (trx) => {
        const option = await this.trading.lockOption(trx, candidate.option_id, true);
        if (!option) return 0;
        const [order] = await this.trading.findOrders(trx, [candidate.id]);
        if (
          !order ||
          !OPEN_STATUSES.includes(order.status) ||
          !order.expires_at ||
          order.expires_at > new Date()
        ) {
          return 0;
        }
        await this.releaseOrders(trx, [order], 'expired', 'expired');
        return 1;
      });
    }
    return expired;
  }

  /**
   * Settles an option under its lock: every holder is paid from escrow (100 a winning share, 50 a share of
   * either side for VOID), the house maker's inventory likewise, and each holder's result is recorded.
   */
  async settleOption(trx: Tx, optionId: number, eventId: number, outcome: Outcome) {
    const option = await this.trading.lockOption(trx, optionId);
    if (!option) throw new NotFoundError('Option');
    const holders = await this.trading.holdersOf(trx, optionId);
    const postings: Posting[] = [];
    const settled: { userId: number; side: Side; state: PositionState }[] = [];
    const records = [];
    let escrowOut = 0;
    for (const row of holders) {
      const { position, payoutCents } = settlePosition(positionStateOf(row), row.side, outcome);
      settled.push({ userId: row.user_id, side: row.side, state: position });
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
    const ammPayout =
      settlePosition({ ...EMPTY_POSITION, quantity: option.amm_yes_shares }, 'YES', outcome).payoutCents +
      settlePosition({ ...EMPTY_POSITION, quantity: option.amm_no_shares }, 'NO', outcome).payoutCents;
    if (ammPayout > 0) postings.push({ account: { kind: 'amm' }, amount: ammPayout });
    escrowOut += ammPayout;
    if (escrowOut > 0) postings.push({ account: { kind: 'escrow', optionId }, amount: -escrowOut });
    const entry: JournalEntry = {
      kind: 'settlement',
      memo: `Settlement of option ${optionId} (${option.label}) as ${outcome}`,
      ref: { type: 'option', id: optionId },
      postings,
    };
    await this.ledger.post(trx, entry);
    await this.trading.savePositions(trx, optionId, settled);
    await this.trading.insertSettlements(trx, records);
    await this.trading.clearAmmInventory(trx, optionId);
    return records;
  }

  hasHeldPosition(trx: Tx, userId: number, eventId: number): Promise<boolean> {
    return this.trading.hasHeldPosition(trx, userId, eventId);
  }

  listOrders(userId: number, open: boolean, beforeId: number | null, limit: number) {
    return this.trading.listOrders(this.db, userId, open, beforeId, limit);
  }

  listTrades(userId: number, settled: boolean | null, beforeId: number | null, limit: number) {
    return this.trading.listTrades(this.db, userId, settled, beforeId, limit);
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

function assertTradable(option: LockedOption): void {
  if (option.event_status !== 'open') throw new MarketClosedError(option.event_status);
  if (option.closes_at <= new Date()) throw new MarketClosedError('past its closing time');
}

/** Shares reserved by ended SELL orders, per holder and side. */
function sharesToRelease(orders: OrderRow[]): { userId: number; side: Side; quantity: number }[] {
  const out = new Map<string, { userId: number; side: Side; quantity: number }>();
  for (const o of orders) {
    if (o.action !== 'SELL') continue;
    const key = positionKey(o.user_id, o.side);
    const entry = out.get(key) ?? { userId: o.user_id, side: o.side, quantity: 0 };
    entry.quantity += o.quantity - o.filled_quantity;
    out.set(key, entry);
  }
  return [...out.values()];
}

function hashRequest(request: OrderRequest): string {
  const canonical = JSON.stringify([
    request.optionId,
    request.kind,
    request.side,
    request.action,
    request.quantity,
    request.priceCents,
    request.expiresInHours ?? null,
    request.clientOrderId ?? null,
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** The wire form of a placed order, also what an idempotent retry replays. */
export function serialisePlaced(placed: PlacedOrder) {
  const order = placed.order;
  const notional = placed.trades
    .filter((t) => t.order_id === order.id)
    .reduce((sum, t) => sum + t.quantity * t.price_cents, 0);
  const own = placed.trades.filter((t) => t.order_id === order.id);
  return {
    ...toOrderView(order),
    averagePriceCents: order.filled_quantity > 0 ? Math.round(notional / order.filled_quantity) : null,
    feeCents: own.reduce((sum, t) => sum + t.fee_cents, 0),
    trades: own.map((t) =>
      toTradeView({
        ...t,
        event_slug: order.event_slug,
        option_label: order.option_label,
        order_kind: order.kind,
      }),
    ),
    selfTradeCancelledOrderIds: placed.selfTradeCancelled.map(String),
  };
}

export function toOrderView(order: OrderRow & { event_slug: string; option_label: string }) {
  return {
    id: String(order.id),
    optionId: String(order.option_id),
    eventSlug: order.event_slug,
    optionLabel: order.option_label,
    kind: order.kind,
    side: order.side,
    action: order.action,
    quantity: order.quantity,
    priceCents: order.price_cents,
    filledQuantity: order.filled_quantity,
    remainingQuantity: order.quantity - order.filled_quantity,
    status: order.status,
    cancelReason: order.cancel_reason,
    reservedCents: order.reserved_cents,
    clientOrderId: order.client_order_id,
    expiresAt: order.expires_at ? order.expires_at.toISOString() : null,
    createdAt: order.created_at.toISOString(),
    updatedAt: order.updated_at.toISOString(),
  };
}

export function toTradeView(
  trade: TradeRow & { event_slug: string; option_label: string; order_kind: 'market' | 'limit' },
) {
  return {
    id: String(trade.id),
    orderId: String(trade.order_id),
    optionId: String(trade.option_id),
    eventSlug: trade.event_slug,
    optionLabel: trade.option_label,
    side: trade.side,
    action: trade.action,
    quantity: trade.quantity,
    priceCents: trade.price_cents,
    feeCents: trade.fee_cents,
    liquidity: trade.liquidity,
    orderKind: trade.order_kind,
    createdAt: trade.created_at.toISOString(),
  };
}

/** A position as the API shows it: valued at its side's last traded price. */
export interface PositionViewSource {
  id: number;
  option_id: number;
  side: Side;
  quantity: number;
  reserved_quantity: number;
  cost_cents: number;
  realized_pnl_cents: number;
  stop_loss_bps: number | null;
  take_profit_bps: number | null;
  event_slug: string;
  event_title: string;
  option_label: string;
  last_yes_price: number | null;
}

export function toPositionView(p: PositionViewSource) {
  const mark = p.last_yes_price === null ? null : sidePrice(p.side, p.last_yes_price);
  const value = valuePosition(
    {
      quantity: p.quantity,
      reservedQuantity: p.reserved_quantity,
      costCents: p.cost_cents,
      realizedPnlCents: p.realized_pnl_cents,
    },
    mark,
  );
  return {
    id: String(p.id),
    optionId: String(p.option_id),
    eventSlug: p.event_slug,
    eventTitle: p.event_title,
    optionLabel: p.option_label,
    side: p.side,
    quantity: p.quantity,
    reservedQuantity: p.reserved_quantity,
    costCents: p.cost_cents,
    markPriceCents: mark,
    realizedPnlCents: p.realized_pnl_cents,
    stopLossProbBps: p.stop_loss_bps,
    takeProfitProbBps: p.take_profit_bps,
    ...value,
  };
}

import type { Kysely } from 'kysely';
import { executeMatch, positionKey } from '../../exchange/execution.js';
import type { JournalEntry, Posting } from '../../exchange/ledger.js';
import type { AmmState } from '../../exchange/lmsr.js';
import { matchOrder, takerStatus } from '../../exchange/matching.js';
import { feeCents, type Side } from '../../exchange/money.js';
import { OrderBook, toLadder } from '../../exchange/order-book.js';
import { applyPositionChange, EMPTY_POSITION, type PositionState } from '../../exchange/positions.js';
import type { DB, OrderStatus } from '../../platform/db/schema.js';
import type { Tx } from '../../platform/db/types.js';
import { InsufficientFundsError, NotFoundError } from '../../platform/errors.js';
import type { LedgerRepository } from '../ledger/repository.js';
import {
  IdempotencyMismatchError,
  InsufficientSharesError,
  MarketClosedError,
  NoLiquidityError,
} from './errors.js';
import {
  type LockedOption,
  type NewTrade,
  type OrderOutcome,
  type OrderRow,
  type TradeRow,
  type TradingRepository,
  toResting,
} from './repository.js';
import type {
  BookChange,
  LadderLevel,
  OrderCommitted,
  OrderRequest,
  PlacedOrder,
  TradingSettings,
} from './service.js';
import { ammOf, positionMap, positionStateOf, releasePostings, reportedLevels } from './state.js';

/** One order waiting for its option's next batch. */
export interface BatchItem {
  userId: number;
  request: OrderRequest;
  /** The idempotency key (the Idempotency-Key header, or `clientOrderId:` + the clientOrderId). */
  key: string | null;
  requestHash: string;
}

export type PlaceResult = { status: number; body: unknown; replayed: boolean };

/**
 * What a batch did with one order: answered (placed, replayed or refused for a reason of its own), or handed
 * back to be placed on its own after the batch (a second use of one idempotency key or clientOrderId in the
 * same batch).
 */
export type BatchOutcome = { result: PlaceResult } | { error: unknown } | { alone: true };

/** An option's resting orders as of `version` of its book (the options.book_version column). */
interface CachedBook {
  version: number;
  book: OrderBook;
  rows: Map<number, OrderRow>;
}

type PositionOp = (state: PositionState) => PositionState;

interface Pending {
  item: BatchItem;
  resolve: (outcome: BatchOutcome) => void;
  reject: (error: unknown) => void;
}

interface Hooks {
  bookChanged(trx: Tx, change: BookChange): Promise<void>;
  ordersCommitted(trx: Tx, changes: OrderCommitted[]): Promise<void>;
  serialise(placed: PlacedOrder): unknown;
}

/**
 * The batched order path. Orders for one option are queued while the previous batch of that option is being
 * written; each batch is matched in memory and written in one transaction under the option's row lock, with
 * a constant number of statements however many orders it holds. The option's book is kept in memory between
 * batches and trusted only while options.book_version still matches: any other writer (another instance, a
 * cancel, an expiry, a protective sell) bumps the version, and the next batch first reads the orders written
 * since the version it holds.
 */
export class OrderBatches {
  private readonly queues = new Map<number, Pending[]>();
  private readonly books = new Map<number, CachedBook>();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly trading: TradingRepository,
    private readonly ledger: LedgerRepository,
    private readonly settings: TradingSettings & { maxBatchOrders: number },
    private readonly hooks: Hooks,
  ) {}

  /** Queues an order for its option's next batch; resolves when that batch has committed (or failed). */
  submit(optionId: number, item: BatchItem): Promise<BatchOutcome> {
    return new Promise((resolve, reject) => {
      let queue = this.queues.get(optionId);
      if (!queue) {
        queue = [];
        this.queues.set(optionId, queue);
        setImmediate(() => void this.drain(optionId, queue as Pending[]));
      }
      queue.push({ item, resolve, reject });
    });
  }

  /**
   * Writes the option's batches one after another while orders are waiting. A batch closes when its transaction
   * holds the option lock, so that the orders that arrived while it waited for the lock (another instance's
   * batch holding it) join it.
   */
  private async drain(optionId: number, queue: Pending[]) {
    while (queue.length > 0) {
      let batch: Pending[] = [];
      try {
        const outcomes = await this.db.transaction().execute(async (trx) => {
          const option = await this.trading.lockOption(trx, optionId);
          batch = queue.splice(0, this.settings.maxBatchOrders);
          return this.write(
            trx,
            option,
            batch.map((entry) => entry.item),
          );
        });
        batch.forEach((entry, index) => {
          entry.resolve(outcomes[index] as BatchOutcome);
        });
      } catch (error) {
        this.books.delete(optionId);
        if (batch.length === 0) batch = queue.splice(0, this.settings.maxBatchOrders);
        for (const entry of batch) entry.reject(error);
      }
    }
    this.queues.delete(optionId);
  }

  private async write(
    trx: Tx,
    option: LockedOption | undefined,
    items: BatchItem[],
  ): Promise<BatchOutcome[]> {
    const outcomes: (BatchOutcome | undefined)[] = items.map(() => undefined);
    if (!option) return items.map(() => ({ error: new NotFoundError('Option') }));
    const optionId = option.id;

    // Idempotency: a key used before replays its stored result; a key or clientOrderId used twice in this
    // batch is placed on its own afterwards, when the first use has committed.
    const seenKeys = new Set<string>();
    const seenClientIds = new Set<string>();
    items.forEach((item, index) => {
      const clientId = item.request.clientOrderId ? `${item.userId}:${item.request.clientOrderId}` : null;
      const key = item.key ? `${item.userId}:${item.key}` : null;
      if ((key && seenKeys.has(key)) || (clientId && seenClientIds.has(clientId))) {
        outcomes[index] = { alone: true };
        return;
      }
      if (key) seenKeys.add(key);
      if (clientId) seenClientIds.add(clientId);
    });
    const keyed = items.filter((item, index) => item.key && !outcomes[index]);
    if (keyed.length > 0) {
      const previous = await this.trading.findIdempotencyKeys(
        trx,
        keyed.map((item) => ({ userId: item.userId, key: item.key as string })),
      );
      const byKey = new Map(previous.map((row) => [`${row.user_id}:${row.key}`, row]));
      items.forEach((item, index) => {
        const row = item.key && !outcomes[index] ? byKey.get(`${item.userId}:${item.key}`) : undefined;
        if (!row) return;
        outcomes[index] =
          row.request_hash === item.requestHash
            ? { result: { status: row.status_code ?? 201, body: row.response, replayed: true } }
            : { error: new IdempotencyMismatchError() };
      });
    }

    const now = option.db_now;
    const closed =
      option.event_status !== 'open'
        ? new MarketClosedError(option.event_status)
        : option.closes_at <= new Date()
          ? new MarketClosedError('past its closing time')
          : null;
    const todo: number[] = [];
    items.forEach((_, index) => {
      if (outcomes[index]) return;
      if (closed) outcomes[index] = { error: closed };
      else todo.push(index);
    });
    if (todo.length === 0) return outcomes as BatchOutcome[];

    // What the batch's takers hold: cash of the buyers, positions of the sellers, locked.
    const buyers = new Set<number>();
    const sellers = new Set<number>();
    for (const index of todo) {
      const item = items[index] as BatchItem;
      (item.request.action === 'BUY' ? buyers : sellers).add(item.userId);
    }
    const { cash, ids } = await this.trading.lockCashAndTakeOrderIds(trx, [...buyers], todo.length);
    const positions = new Map<string, { userId: number; side: Side; state: PositionState }>();
    for (const userId of sellers) {
      for (const side of ['YES', 'NO'] as const)
        positions.set(positionKey(userId, side), { userId, side, state: EMPTY_POSITION });
    }
    for (const row of await this.trading.lockPositions(trx, optionId, [...sellers])) {
      positions.set(positionKey(row.user_id, row.side), {
        userId: row.user_id,
        side: row.side,
        state: positionStateOf(row),
      });
    }
    const pending = new Map<string, { userId: number; side: Side; ops: PositionOp[] }>();
    const dirty = new Set<string>();
    const changePosition = (userId: number, side: Side, op: PositionOp) => {
      const key = positionKey(userId, side);
      dirty.add(key);
      const known = positions.get(key);
      if (known) {
        known.state = op(known.state);
        return;
      }
      const waiting = pending.get(key) ?? { userId, side, ops: [] };
      waiting.ops.push(op);
      pending.set(key, waiting);
    };

    const cached = await this.bookOf(trx, option);
    const { book, rows } = cached;
    const amm = ammOf(option);
    const ammBefore = amm ? { ...amm } : null;

    const newOrders = new Map<number, OrderRow>();
    const changedOrders = new Map<number, OrderRow>();
    const entries: JournalEntry[] = [];
    const fills: {
      takerOrderId: number;
      yesPrice: number;
      quantity: number;
      kind: 'mint' | 'transfer' | 'merge';
      makerOrderId: number | null;
    }[] = [];
    const trades: NewTrade[] = [];
    const placed: {
      index: number;
      order: OrderRow;
      trades: [number, number];
      makers: OrderRow[];
      cancelled: OrderRow[];
    }[] = [];
    const record = (row: OrderRow) => {
      if (newOrders.has(row.id)) newOrders.set(row.id, row);
      else changedOrders.set(row.id, row);
    };
    const touched = new Set<string>();
    const totals = { pairsMinted: 0, pairsMerged: 0, volumeShares: 0, volumeCents: 0 };
    let lastYesPrice: number | null = null;

    for (const index of todo) {
      const { userId, request } = items[index] as BatchItem;
      const { side, action, quantity, priceCents } = request;
      if (action === 'BUY') {
        const needed = priceCents * quantity + feeCents(priceCents * quantity, this.settings.takerFeeBps);
        const available = cash.get(userId) ?? 0;
        if (available < needed) {
          outcomes[index] = { error: new InsufficientFundsError(needed, available) };
          continue;
        }
      } else {
        const held = positions.get(positionKey(userId, side))?.state ?? EMPTY_POSITION;
        const available = held.quantity - held.reservedQuantity;
        if (available < quantity) {
          outcomes[index] = { error: new InsufficientSharesError(quantity, available) };
          continue;
        }
      }

      const id = ids.shift() as number;
      const ladder = toLadder(side, action, priceCents);
      const incoming = { id, userId, side, action, limitPrice: priceCents, quantity };
      const match = matchOrder(book, amm, incoming);
      if (request.kind === 'market' && match.filledQuantity === 0) {
        // Nothing happened: the own orders it met go back where they were.
        for (const order of match.selfTradeCancels) book.restore(order);
        outcomes[index] = { error: new NoLiquidityError() };
        continue;
      }
      const restingQuantity = request.kind === 'limit' ? match.remaining : 0;
      const execution = executeMatch(
        optionId,
        { orderId: id, userId, side, action, limitPrice: priceCents, quantity },
        match,
        { feeBps: this.settings.takerFeeBps, restingQuantity },
      );

      // Self-trade prevention: the taker's own resting orders it met are cancelled and release what they held.
      const cancelled = match.selfTradeCancels.map((resting) => {
        const row = rows.get(resting.id) as OrderRow;
        rows.delete(resting.id);
        touched.add(`${row.book_side}:${row.book_price}`);
        const ended: OrderRow = {
          ...row,
          status: 'cancelled',
          reserved_cents: 0,
          cancel_reason: 'self_trade_prevented',
          updated_at: now,
        };
        if (row.action === 'SELL') {
          const left = row.quantity - row.filled_quantity;
          changePosition(row.user_id, row.side, (state) => ({
            ...state,
            reservedQuantity: state.reservedQuantity - left,
          }));
        }
        record(ended);
        return { row, ended };
      });
      const postings: Posting[] = [...execution.postings, ...releasePostings(cancelled.map((c) => c.row))];
      for (const posting of postings) {
        const { account } = posting;
        if (account.kind === 'cash' && cash.has(account.userId))
          cash.set(account.userId, (cash.get(account.userId) as number) + posting.amount);
      }
      entries.push({
        kind: 'order',
        memo: `${request.kind} order ${id}: ${action} ${quantity} ${side} @ ${priceCents}`,
        userId,
        ref: { type: 'order', id },
        postings,
      });
      for (const change of execution.positionChanges.values()) {
        changePosition(change.userId, change.side, (state) => applyPositionChange(state, change.change));
      }

      const fillBase = fills.length;
      const tradeBase = trades.length;
      for (const fill of match.fills) {
        fills.push({
          takerOrderId: id,
          yesPrice: fill.yesPrice,
          quantity: fill.quantity,
          kind: fill.kind,
          makerOrderId: fill.maker.kind === 'order' ? fill.maker.order.id : null,
        });
        if (fill.maker.kind === 'order')
          touched.add(`${ladder.bookSide === 'bid' ? 'ask' : 'bid'}:${fill.yesPrice}`);
      }
      for (const trade of execution.trades) trades.push({ ...trade, fillIndex: trade.fillIndex + fillBase });

      const makers = execution.makerUpdates.map((update) => {
        const row = rows.get(update.orderId) as OrderRow;
        const filled = row.filled_quantity + update.filledQuantity;
        const next: OrderRow = {
          ...row,
          filled_quantity: filled,
          reserved_cents: row.reserved_cents - update.reservedSpentCents,
          status: filled === row.quantity ? 'filled' : 'partially_filled',
          updated_at: now,
        };
        if (filled === row.quantity) rows.delete(row.id);
        else rows.set(row.id, next);
        record(next);
        return next;
      });

      const status: OrderStatus = takerStatus(match, restingQuantity);
      const order: OrderRow = {
        id,
        user_id: userId,
        option_id: optionId,
        kind: request.kind,
        side,
        action,
        price_cents: priceCents,
        book_side: ladder.bookSide,
        book_price: ladder.bookPrice,
        quantity,
        filled_quantity: match.filledQuantity,
        reserved_cents: execution.takerRestingReserveCents,
        status,
        cancel_reason: status === 'cancelled' ? 'unfilled_remainder' : null,
        client_order_id: request.clientOrderId ?? null,
        expires_at: request.expiresInHours ? new Date(Date.now() + request.expiresInHours * 3_600_000) : null,
        created_at: now,
        updated_at: now,
        book_version: option.book_version + 1,
      };
      newOrders.set(id, order);
      if (restingQuantity > 0) {
        book.add({
          id,
          userId,
          side,
          action,
          bookSide: ladder.bookSide,
          bookPrice: ladder.bookPrice,
          remaining: restingQuantity,
        });
        rows.set(id, order);
        touched.add(`${ladder.bookSide}:${ladder.bookPrice}`);
      }

      totals.pairsMinted += execution.pairsMinted;
      totals.pairsMerged += execution.pairsMerged;
      totals.volumeShares += execution.volumeShares;
      totals.volumeCents += execution.takerNotionalCents;
      if (execution.lastYesPrice !== null) lastYesPrice = execution.lastYesPrice;
      placed.push({
        index,
        order,
        trades: [tradeBase, trades.length],
        makers,
        cancelled: cancelled.map((c) => c.ended),
      });
    }

    // Write it all: the positions it changed are read (locked) first, then one statement for the exchange's
    // rows and one for the ledger, however many orders the batch holds.
    if (pending.size > 0) {
      const users = [...new Set([...pending.values()].map((p) => p.userId))];
      const found = positionMap(await this.trading.lockPositions(trx, optionId, users));
      for (const [key, waiting] of pending) {
        const state = waiting.ops.reduce((current, op) => op(current), found.get(key) ?? EMPTY_POSITION);
        positions.set(key, { userId: waiting.userId, side: waiting.side, state });
      }
    }
    const { bookVersion, fillIds, tradeIds } = await this.trading.writeBatch(trx, {
      optionId,
      eventId: option.event_id,
      orders: [...newOrders.values()],
      fills,
      trades,
      changedOrders: [...changedOrders.values()].map(
        (row): OrderOutcome => ({
          id: row.id,
          filledQuantity: row.filled_quantity,
          reservedCents: row.reserved_cents,
          status: row.status,
          cancelReason: row.cancel_reason,
        }),
      ),
      positions: [...dirty].map(
        (key) => positions.get(key) as { userId: number; side: Side; state: PositionState },
      ),
      option: {
        ammYesShares: amm?.yesShares ?? option.amm_yes_shares,
        ammNoShares: amm?.noShares ?? option.amm_no_shares,
        ...totals,
        lastYesPrice,
      },
    });
    await this.ledger.postMany(trx, entries);
    const tradeRows: TradeRow[] = trades.map((trade, index) => ({
      id: tradeIds[index] as number,
      fill_id: fillIds[trade.fillIndex] as number,
      order_id: trade.orderId,
      user_id: trade.userId,
      option_id: optionId,
      event_id: option.event_id,
      side: trade.side,
      action: trade.action,
      quantity: trade.quantity,
      price_cents: trade.priceCents,
      fee_cents: trade.feeCents,
      liquidity: trade.liquidity,
      created_at: now,
    }));

    // Answers, stored for idempotent retries.
    const slugged = (row: OrderRow) => ({ ...row, event_slug: option.slug, option_label: option.label });
    const stored: {
      userId: number;
      key: string;
      requestHash: string;
      statusCode: number;
      response: unknown;
    }[] = [];
    const changes: OrderCommitted[] = [];
    for (const entry of placed) {
      const item = items[entry.index] as BatchItem;
      const own = tradeRows.slice(entry.trades[0], entry.trades[1]);
      const body = this.hooks.serialise({
        order: slugged(entry.order),
        trades: own,
        selfTradeCancelled: entry.cancelled.map((row) => row.id),
        bookVersion,
      });
      outcomes[entry.index] = { result: { status: 201, body, replayed: false } };
      if (item.key)
        stored.push({
          userId: item.userId,
          key: item.key,
          requestHash: item.requestHash,
          statusCode: 201,
          response: body,
        });
      changes.push({
        optionId,
        eventId: option.event_id,
        order: entry.order,
        trades: own,
        makerOrders: entry.makers,
        cancelledOrders: entry.cancelled,
      });
    }
    if ((await this.trading.insertIdempotencyResults(trx, stored)) !== stored.length) {
      throw new Error('an idempotency key was used concurrently; the batch is placed order by order');
    }

    // Market data and the listeners (notifications, webhooks, protections, copy trading), in the transaction.
    if (placed.length > 0) {
      await this.hooks.bookChanged(trx, {
        optionId,
        bookVersion,
        levels: levelsOf(book, touched, amm, ammBefore),
        fills: fills.map((fill, index) => {
          const taker = newOrders.get(fill.takerOrderId) as OrderRow;
          return {
            id: fillIds[index] as number,
            yesPriceCents: fill.yesPrice,
            quantity: fill.quantity,
            takerSide: taker.side,
            takerAction: taker.action,
            at: now.toISOString(),
          };
        }),
      });
      await this.hooks.ordersCommitted(trx, changes);
    }
    cached.version = bookVersion;
    return outcomes.map((outcome) => outcome ?? { alone: true });
  }

  /**
   * The option's book: the one in memory when its version still matches; when another writer has moved the
   * book on since, the one in memory brought up to date with the orders that changed after its version; else
   * the resting orders read under the lock.
   */
  private async bookOf(trx: Tx, option: LockedOption): Promise<CachedBook> {
    const cached = this.books.get(option.id);
    if (cached && cached.version === option.book_version) return cached;
    if (cached && cached.version < option.book_version) {
      for (const row of await this.trading.ordersChangedSince(trx, option.id, cached.version)) {
        const resting = row.status === 'open' || row.status === 'partially_filled';
        if (!resting) {
          cached.book.remove(row.id);
          cached.rows.delete(row.id);
          continue;
        }
        const remaining = row.quantity - row.filled_quantity;
        if (cached.book.has(row.id)) cached.book.setRemaining(row.id, remaining);
        else cached.book.restore(toResting(row));
        cached.rows.set(row.id, row);
      }
      cached.version = option.book_version;
      return cached;
    }
    const open = await this.trading.openOrdersOf(trx, option.id);
    const fresh: CachedBook = {
      version: option.book_version,
      book: new OrderBook(open.map(toResting)),
      rows: new Map(open.map((row) => [row.id, row])),
    };
    this.books.set(option.id, fresh);
    return fresh;
  }
}

/** The ladder levels a batch touched, read from the book in memory, plus every price the house quote moved. */
function levelsOf(
  book: OrderBook,
  touched: Set<string>,
  amm: AmmState | null,
  ammBefore: AmmState | null,
): LadderLevel[] {
  return reportedLevels(touched, amm, ammBefore).map((level) => {
    const resting = book.level(level.side, level.priceCents);
    return {
      side: level.side,
      priceCents: level.priceCents,
      quantity: resting.quantity + level.houseQuantity,
      orders: resting.size,
      houseQuantity: level.houseQuantity,
    };
  });
}

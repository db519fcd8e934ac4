import { LRUCache } from 'lru-cache';
import type { BookState } from '../../exchange/decision.js';
import { OrderBook } from '../../exchange/order-book.js';
import { isResting, restingOf } from '../../exchange/orders.js';
import type { Tx } from '../../platform/db/types.js';
import type { LockedOption, TradingRepository } from './repository.js';
import { orderStateOf } from './rows.js';

interface HeldBook {
  /** The options.book_version this book stands at. */
  version: number;
  state: BookState;
  /** The transaction that is changing it and has not committed yet: until it has, no other one may trust it. */
  writer: Tx | null;
}

/**
 * Options' books kept in memory between changes, so that a batch does not read every resting order again. A book
 * is trusted only under the option's lock, at the version the option row shows, and once the transaction that
 * last changed it has committed (or by that same transaction). When another writer (another instance, a
 * transaction this process did not commit) moved the book on since, it is brought up to date with the orders that
 * changed after its version, or read whole.
 */
export class BookCache {
  private readonly books: LRUCache<number, HeldBook>;
  /** The options each uncommitted transaction has taken the books of. */
  private readonly writing = new WeakMap<Tx, number[]>();

  constructor(
    private readonly trading: TradingRepository,
    maxBooks: number,
  ) {
    this.books = new LRUCache({ max: maxBooks });
  }

  /** The option's book for a transaction that holds its lock and is about to change it. */
  async load(trx: Tx, option: LockedOption): Promise<BookState> {
    const taken = this.writing.get(trx);
    if (taken) taken.push(option.id);
    else this.writing.set(trx, [option.id]);
    const held = this.books.get(option.id);
    if (held && held.version === option.book_version && (held.writer === null || held.writer === trx)) {
      held.writer = trx;
      return held.state;
    }
    if (held && held.writer === null && held.version < option.book_version) {
      await this.catchUp(trx, option, held.state, held.version);
      held.version = option.book_version;
      held.writer = trx;
      return held.state;
    }
    const open = await this.trading.openOrdersOf(trx, option.id);
    const orders = open.map(orderStateOf);
    const state: BookState = {
      book: new OrderBook(orders.map(restingOf)),
      orders: new Map(orders.map((order) => [order.id, order])),
    };
    this.books.set(option.id, { version: option.book_version, state, writer: trx });
    return state;
  }

  /** The book in memory now stands at `version`, written by `trx`. */
  written(trx: Tx, optionId: number, version: number): void {
    const held = this.books.get(optionId);
    if (held?.writer === trx) held.version = version;
  }

  /** A change to the book failed part-way: what is in memory may be ahead of the database. */
  forget(optionId: number): void {
    this.books.delete(optionId);
  }

  /** `trx` committed: the books it changed can be trusted by anyone. */
  committedBy(trx: Tx): void {
    for (const optionId of this.writing.get(trx) ?? []) {
      const held = this.books.get(optionId);
      if (held?.writer === trx) held.writer = null;
    }
    this.writing.delete(trx);
  }

  private async catchUp(trx: Tx, option: LockedOption, state: BookState, version: number): Promise<void> {
    for (const row of await this.trading.ordersChangedSince(trx, option.id, version)) {
      const order = orderStateOf(row);
      if (!isResting(order)) {
        state.book.remove(order.id);
        state.orders.delete(order.id);
        continue;
      }
      const remaining = order.quantity - order.filledQuantity;
      if (state.book.has(order.id)) state.book.setRemaining(order.id, remaining);
      else state.book.restore(restingOf(order));
      state.orders.set(order.id, order);
    }
  }
}

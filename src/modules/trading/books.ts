import { LRUCache } from 'lru-cache';
import type { BookState } from '../../exchange/decision.js';
import { OrderBook } from '../../exchange/order-book.js';
import { isResting, restingOf } from '../../exchange/orders.js';
import type { Tx } from '../../platform/db/types.js';
import type { LockedOption, OrderRow, TradingRepository } from './repository.js';
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

  /**
   * The books of options a transaction holds the locks of and is about to change, read in one statement whatever
   * their number: the resting orders of those not in memory, and the orders changed since of those behind.
   */
  async loadMany(trx: Tx, options: LockedOption[]): Promise<Map<number, BookState>> {
    const books = new Map<number, BookState>();
    const whole: number[] = [];
    const behind: { optionId: number; version: number }[] = [];
    for (const option of options) {
      const taken = this.writing.get(trx);
      if (taken) taken.push(option.id);
      else this.writing.set(trx, [option.id]);
      const held = this.books.get(option.id);
      if (held && held.version === option.book_version && (held.writer === null || held.writer === trx)) {
        held.writer = trx;
        books.set(option.id, held.state);
      } else if (held && held.writer === null && held.version < option.book_version)
        behind.push({ optionId: option.id, version: held.version });
      else whole.push(option.id);
    }
    if (whole.length === 0 && behind.length === 0) return books;
    const rows = new Map<number, OrderRow[]>();
    for (const row of await this.trading.bookRows(trx, whole, behind)) {
      const own = rows.get(row.option_id);
      if (own) own.push(row);
      else rows.set(row.option_id, [row]);
    }
    const catchingUp = new Set(behind.map((b) => b.optionId));
    for (const option of options) {
      if (books.has(option.id)) continue;
      const own = rows.get(option.id) ?? [];
      const held = this.books.get(option.id);
      if (held && catchingUp.has(option.id)) {
        applyChanges(held.state, own);
        held.version = option.book_version;
        held.writer = trx;
        books.set(option.id, held.state);
        continue;
      }
      const orders = own.map(orderStateOf);
      const state: BookState = {
        book: new OrderBook(orders.map(restingOf)),
        orders: new Map(orders.map((order) => [order.id, order])),
      };
      this.books.set(option.id, { version: option.book_version, state, writer: trx });
      books.set(option.id, state);
    }
    return books;
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
}

/** Brings a book up to date with orders changed since it was held (in id order). */
function applyChanges(state: BookState, rows: OrderRow[]): void {
  for (const row of rows) {
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

import { LRUCache } from 'lru-cache';
import type { Queryable } from '../../platform/db/types.js';
import type { MarketRef, TradingRepository } from './repository.js';

/**
 * Which market each option trades in, remembered. Whether an event is exclusive is fixed once it opens; a draft may
 * still change, and an order that queued for the wrong market is sent back by the pipeline (`reroute`) to look again.
 */
export class MarketDirectory {
  /**
   * Lookups as promises: requests that ask at once share one read and go on in the order they asked, so that orders
   * sent together still queue in their order and ride the same batch.
   */
  private readonly known = new LRUCache<number, Promise<MarketRef>>({ max: 10_000 });

  constructor(
    private readonly db: Queryable,
    private readonly trading: TradingRepository,
  ) {}

  /**
   * The option's market; an unknown option is its own (the pipeline then answers that it does not exist). Inside a
   * transaction, pass it: the embedded database has one connection, which the transaction holds.
   */
  of(optionId: number, db: Queryable = this.db): Promise<MarketRef> {
    const known = this.known.get(optionId);
    if (known) return known;
    const ref = this.trading
      .marketOf(db, optionId)
      .then((found): MarketRef => found ?? { kind: 'option', optionId });
    this.known.set(optionId, ref);
    // A failed read is not remembered: the next request reads again.
    ref.catch(() => this.known.delete(optionId));
    return ref;
  }

  forget(optionId: number): void {
    this.known.delete(optionId);
  }
}

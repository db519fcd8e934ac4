import type { BookLevel, OrderBook } from './types';

export interface StreamLevel extends BookLevel {
  side: 'bid' | 'ask';
}

export type DeltaResult = 'applied' | 'ignored' | 'gap';

/** The NO side of a YES ladder: a YES bid at p is a NO ask at 100 − p, and the other way round. */
function mirror(levels: BookLevel[]): BookLevel[] {
  return levels.map((level) => ({ ...level, priceCents: 100 - level.priceCents }));
}

/**
 * An option's YES ladder kept from the stream: a snapshot, then deltas whose `seq` (the book version) must follow
 * one another. A gap means a missed change: the book waits for a fresh snapshot and ignores deltas meanwhile.
 */
export class LiveBook {
  private readonly bids = new Map<number, BookLevel>();
  private readonly asks = new Map<number, BookLevel>();
  private seq = -1;
  private lastYesPriceCents: number | null = null;
  private exclusive = false;
  private waiting = true;

  get ready(): boolean {
    return !this.waiting;
  }

  snapshot(seq: number, levels: StreamLevel[], lastYesPriceCents: number | null, exclusive = false): void {
    this.exclusive = exclusive;
    this.bids.clear();
    this.asks.clear();
    this.apply(levels);
    this.seq = seq;
    this.lastYesPriceCents = lastYesPriceCents;
    this.waiting = false;
  }

  delta(seq: number, levels: StreamLevel[]): DeltaResult {
    if (this.waiting || seq <= this.seq) return 'ignored';
    if (seq !== this.seq + 1) {
      this.waiting = true;
      return 'gap';
    }
    this.apply(levels);
    this.seq = seq;
    return 'applied';
  }

  traded(yesPriceCents: number): void {
    this.lastYesPriceCents = yesPriceCents;
  }

  toOrderBook(meta: { optionId: string; eventSlug: string; optionLabel: string }): OrderBook {
    const yesBids = [...this.bids.values()].sort((a, b) => b.priceCents - a.priceCents);
    const yesAsks = [...this.asks.values()].sort((a, b) => a.priceCents - b.priceCents);
    return {
      ...meta,
      exclusive: this.exclusive,
      lastYesPriceCents: this.lastYesPriceCents,
      bookVersion: this.seq,
      yes: { bids: yesBids, asks: yesAsks },
      no: { bids: mirror(yesAsks), asks: mirror(yesBids) },
    };
  }

  private apply(levels: StreamLevel[]): void {
    for (const { side, ...level } of levels) {
      const book = side === 'bid' ? this.bids : this.asks;
      if (level.quantity > 0) book.set(level.priceCents, level);
      else book.delete(level.priceCents);
    }
  }
}

import { describe, expect, it } from 'vitest';
import { LiveBook, type StreamLevel } from './book';

const bid = (priceCents: number, quantity: number): StreamLevel => ({
  side: 'bid',
  priceCents,
  quantity,
  orders: 1,
  houseQuantity: 0,
});
const ask = (priceCents: number, quantity: number): StreamLevel => ({
  ...bid(priceCents, quantity),
  side: 'ask',
});
const meta = { optionId: '7', eventSlug: 'rain', optionLabel: 'Yes it will' };

describe('live order book from the stream', () => {
  it('ignores deltas until the first snapshot', () => {
    const book = new LiveBook();
    expect(book.delta(3, [bid(40, 5)])).toBe('ignored');
    expect(book.ready).toBe(false);
  });

  it('shows the YES ladder best first and its NO mirror', () => {
    const book = new LiveBook();
    book.snapshot(4, [bid(40, 5), bid(45, 2), ask(55, 3), ask(60, 1)], 50);
    const view = book.toOrderBook(meta);
    expect(view.yes.bids.map((l) => l.priceCents)).toEqual([45, 40]);
    expect(view.yes.asks.map((l) => l.priceCents)).toEqual([55, 60]);
    // Buying NO at 45 is selling YES at 55: the NO bids are the YES asks seen from the other side.
    expect(view.no.bids.map((l) => [l.priceCents, l.quantity])).toEqual([
      [45, 3],
      [40, 1],
    ]);
    expect(view.no.asks.map((l) => [l.priceCents, l.quantity])).toEqual([
      [55, 2],
      [60, 5],
    ]);
    expect(view).toMatchObject({ ...meta, bookVersion: 4, lastYesPriceCents: 50 });
  });

  it('applies consecutive deltas: changed levels replace, quantity 0 removes', () => {
    const book = new LiveBook();
    book.snapshot(4, [bid(40, 5), ask(55, 3)], null);
    expect(book.delta(5, [bid(40, 0), bid(42, 7), ask(55, 1)])).toBe('applied');
    const view = book.toOrderBook(meta);
    expect(view.yes.bids).toEqual([{ priceCents: 42, quantity: 7, orders: 1, houseQuantity: 0 }]);
    expect(view.yes.asks.map((l) => l.quantity)).toEqual([1]);
    expect(view.bookVersion).toBe(5);
  });

  it('drops deltas it already has and waits for a snapshot after a gap', () => {
    const book = new LiveBook();
    book.snapshot(4, [bid(40, 5)], null);
    expect(book.delta(4, [bid(40, 9)])).toBe('ignored');
    expect(book.delta(6, [bid(40, 1)])).toBe('gap');
    expect(book.delta(7, [bid(40, 2)])).toBe('ignored');
    expect(book.toOrderBook(meta).yes.bids[0]?.quantity).toBe(5);
    book.snapshot(7, [bid(41, 3)], 41);
    expect(book.delta(8, [bid(41, 4)])).toBe('applied');
    expect(book.toOrderBook(meta).yes.bids).toEqual([
      { priceCents: 41, quantity: 4, orders: 1, houseQuantity: 0 },
    ]);
  });

  it('takes the last traded price from trades', () => {
    const book = new LiveBook();
    book.snapshot(1, [], 50);
    book.traded(53);
    expect(book.toOrderBook(meta).lastYesPriceCents).toBe(53);
  });

  it('says whether the option is one of an exclusive event’s, as its snapshot did', () => {
    const book = new LiveBook();
    book.snapshot(1, [], 50);
    expect(book.toOrderBook(meta).exclusive).toBe(false);
    book.snapshot(2, [], 50, true);
    expect(book.toOrderBook(meta).exclusive).toBe(true);
  });
});

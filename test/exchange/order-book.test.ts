import { describe, expect, it } from 'vitest';
import { OrderBook, type RestingOrder } from '../../src/exchange/order-book.js';

const ask = (id: number, price: number, remaining: number, userId = id): RestingOrder => ({
  id,
  userId,
  side: 'NO',
  action: 'BUY',
  bookSide: 'ask',
  bookPrice: price,
  remaining,
});

describe('the order book kept in memory', () => {
  it('puts a restored order back in its place in time order, with its quantity', () => {
    const book = new OrderBook([ask(1, 50, 5), ask(3, 50, 7), ask(4, 50, 1)]);
    book.restore(ask(2, 50, 4));
    expect([...book.level('ask', 50).each()].map((o) => o.id)).toEqual([1, 2, 3, 4]);
    expect(book.depth('ask')).toEqual([{ price: 50, quantity: 17, orders: 4 }]);
    book.restore(ask(0, 50, 2));
    expect(book.level('ask', 50).peek()?.id).toBe(0);
    expect(() => book.restore(ask(3, 50, 7))).toThrow(/already on the book/);
  });

  it('restores behind the head after fills have taken orders off the front', () => {
    const book = new OrderBook([ask(1, 50, 5), ask(2, 50, 5), ask(5, 50, 5)]);
    book.fillHead(book.get(1) as RestingOrder, 5);
    book.restore(ask(4, 50, 3));
    expect([...book.level('ask', 50).each()].map((o) => o.id)).toEqual([2, 4, 5]);
    expect(book.level('ask', 50).quantity).toBe(13);
  });

  it('sets what is left of an order another writer filled, and takes it off at zero', () => {
    const book = new OrderBook([ask(1, 50, 10), ask(2, 51, 4)]);
    book.setRemaining(1, 6);
    expect(book.get(1)?.remaining).toBe(6);
    expect(book.depth('ask')).toEqual([
      { price: 50, quantity: 6, orders: 1 },
      { price: 51, quantity: 4, orders: 1 },
    ]);
    book.setRemaining(2, 0);
    expect(book.has(2)).toBe(false);
    expect(book.depth('ask')).toEqual([{ price: 50, quantity: 6, orders: 1 }]);
    book.setRemaining(99, 3);
    expect(book.size).toBe(1);
  });
});

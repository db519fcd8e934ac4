import { describe, expect, it } from 'vitest';
import { ammLevels, ammPrice, offsetForPrice } from '../../src/exchange/lmsr.js';
import { takerStatus } from '../../src/exchange/matching.js';
import { OrderBook } from '../../src/exchange/order-book.js';
import { applyPositionChange, EMPTY_POSITION, settlePosition } from '../../src/exchange/positions.js';
import { OPTION_ID, World } from './world.js';

function world(liquidity: number | null = null, feeBps = 0) {
  const w = new World(
    liquidity ? { liquidityCents: liquidity, offset: 0, yesShares: 0, noShares: 0 } : null,
    feeBps,
  );
  for (const user of [1, 2, 3]) w.fund(user, 100_000);
  return w;
}

describe('matching', () => {
  it('mints pairs when BUY YES meets BUY NO, at the resting price, returning the improvement', () => {
    const w = world();
    const maker = w.place({ userId: 1, side: 'NO', action: 'BUY', price: 40, quantity: 10, rest: true })!;
    expect(w.balance({ kind: 'reserved', userId: 1 })).toBe(400);
    const taker = w.place({ userId: 2, side: 'YES', action: 'BUY', price: 70, quantity: 10, rest: false })!;
    expect(taker.fills).toHaveLength(1);
    expect(taker.fills[0]).toMatchObject({ yesPrice: 60, quantity: 10, kind: 'mint' });
    expect(w.balance({ kind: 'cash', userId: 2 })).toBe(100_000 - 600);
    expect(w.balance({ kind: 'reserved', userId: 1 })).toBe(0);
    expect(w.balance({ kind: 'escrow', optionId: OPTION_ID })).toBe(1000);
    expect(w.position(1, 'NO').quantity).toBe(10);
    expect(w.position(2, 'YES')).toMatchObject({ quantity: 10, costCents: 600 });
    expect(maker.id).toBeLessThan(taker.id);
  });

  it('transfers shares when a BUY meets a SELL of the same side, and merges when both sides sell', () => {
    const w = world();
    w.place({ userId: 1, side: 'NO', action: 'BUY', price: 50, quantity: 10, rest: true });
    w.place({ userId: 2, side: 'YES', action: 'BUY', price: 50, quantity: 10, rest: false });
    // user 2 sells 4 YES to user 3: a transfer.
    w.place({ userId: 3, side: 'YES', action: 'BUY', price: 55, quantity: 4, rest: true });
    const transfer = w.place({
      userId: 2,
      side: 'YES',
      action: 'SELL',
      price: 50,
      quantity: 4,
      rest: false,
    })!;
    expect(transfer.fills[0]).toMatchObject({ kind: 'transfer', yesPrice: 55, quantity: 4 });
    expect(w.position(2, 'YES')).toMatchObject({ quantity: 6, costCents: 300, realizedPnlCents: 20 });
    // user 1 sells NO while user 2 sells YES: a merge releases escrow.
    w.place({ userId: 1, side: 'NO', action: 'SELL', price: 45, quantity: 6, rest: true });
    const merge = w.place({ userId: 2, side: 'YES', action: 'SELL', price: 50, quantity: 6, rest: false })!;
    expect(merge.fills[0]).toMatchObject({ kind: 'merge', yesPrice: 55, quantity: 6 });
    expect(w.pairsMinted - w.pairsMerged).toBe(4);
    expect(w.balance({ kind: 'escrow', optionId: OPTION_ID })).toBe(400);
  });

  it('fills by price first, then time', () => {
    const w = world();
    const a = w.place({ userId: 1, side: 'YES', action: 'BUY', price: 50, quantity: 5, rest: true })!;
    const b = w.place({ userId: 3, side: 'YES', action: 'BUY', price: 52, quantity: 5, rest: true })!;
    const c = w.place({ userId: 1, side: 'YES', action: 'BUY', price: 52, quantity: 5, rest: true })!;
    const taker = w.place({ userId: 2, side: 'NO', action: 'BUY', price: 50, quantity: 12, rest: false })!;
    expect(taker.fills.map((f) => [f.makerOrderId ?? 0, f.yesPrice, f.quantity])).toEqual([
      [b.id, 52, 5],
      [c.id, 52, 5],
      [a.id, 50, 2],
    ]);
  });

  it('cancels the taker’s own resting orders instead of filling them', () => {
    const w = world();
    const own = w.place({ userId: 1, side: 'NO', action: 'BUY', price: 45, quantity: 5, rest: true })!;
    const other = w.place({ userId: 2, side: 'NO', action: 'BUY', price: 40, quantity: 5, rest: true })!;
    const taker = w.place({ userId: 1, side: 'YES', action: 'BUY', price: 60, quantity: 5, rest: false })!;
    expect(taker.selfTradeCancelled.map((o) => o.id)).toEqual([own.id]);
    expect(taker.fills[0]?.makerOrderId).toBe(other.id);
    expect(w.balance({ kind: 'reserved', userId: 1 })).toBe(0);
    expect(w.balance({ kind: 'cash', userId: 1 })).toBe(100_000 - 300);
  });

  it('charges the taker fee on notional, rounded up', () => {
    const w = world(null, 100);
    w.place({ userId: 1, side: 'NO', action: 'BUY', price: 33, quantity: 3, rest: true });
    const taker = w.place({ userId: 2, side: 'YES', action: 'BUY', price: 67, quantity: 3, rest: false })!;
    expect(taker.feeCents).toBe(3); // 1% of 201, rounded up
    expect(w.balance({ kind: 'fees' })).toBe(3);
    expect(w.position(2, 'YES').costCents).toBe(204);
  });
});

describe('the house market maker', () => {
  it('quotes 49/51 around an even start and fills a market trade at once', () => {
    const w = world(100_000);
    const levels = ammLevels(w.amm!);
    expect(levels.bids[0]?.[0]).toBe(49);
    expect(levels.asks[0]?.[0]).toBe(51);
    const taker = w.place({ userId: 1, side: 'YES', action: 'BUY', price: 60, quantity: 100, rest: false })!;
    expect(taker.order.filledQuantity).toBe(100);
    expect(taker.fills.every((f) => f.makerOrderId === null && f.kind === 'mint')).toBe(true);
    expect(taker.fills[0]?.yesPrice).toBe(51);
    expect(ammPrice(w.amm!)).toBeGreaterThan(50);
    expect(w.amm!.noShares).toBe(100);
    // Selling back: the maker sells its NO inventory, merging pairs.
    const back = w.place({ userId: 1, side: 'YES', action: 'SELL', price: 40, quantity: 100, rest: false })!;
    expect(back.fills.every((f) => f.kind === 'merge')).toBe(true);
    expect(w.amm!.noShares).toBe(0);
    expect(w.pairsMinted - w.pairsMerged).toBe(0);
    expect(w.balance({ kind: 'amm' })).toBeGreaterThan(0); // it earned the spread
  });

  it('can start at another price', () => {
    const amm = { liquidityCents: 100_000, offset: offsetForPrice(100_000, 70), yesShares: 0, noShares: 0 };
    expect(Math.round(ammPrice(amm))).toBe(70);
    expect(ammLevels(amm).asks[0]?.[0]).toBe(71);
  });
});

describe('positions', () => {
  it('uses average cost and books realized P&L on sales and settlement', () => {
    let p = applyPositionChange(EMPTY_POSITION, { ...zero(), boughtQuantity: 10, boughtCostCents: 400 });
    p = applyPositionChange(p, { ...zero(), boughtQuantity: 10, boughtCostCents: 600 });
    p = applyPositionChange(p, { ...zero(), soldQuantity: 5, soldProceedsCents: 350 });
    expect(p).toEqual({ quantity: 15, reservedQuantity: 0, costCents: 750, realizedPnlCents: 100 });
    const won = settlePosition(p, 'YES', 100);
    expect(won.payoutCents).toBe(1500);
    expect(won.position.realizedPnlCents).toBe(850);
    expect(settlePosition(p, 'NO', 50).payoutCents).toBe(750);
  });
});

describe('order book', () => {
  it('aggregates levels best first and removes orders', () => {
    const book = new OrderBook([
      { id: 1, userId: 1, side: 'YES', action: 'BUY', bookSide: 'bid', bookPrice: 40, remaining: 5 },
      { id: 2, userId: 2, side: 'NO', action: 'SELL', bookSide: 'bid', bookPrice: 40, remaining: 3 },
      { id: 3, userId: 2, side: 'YES', action: 'BUY', bookSide: 'bid', bookPrice: 45, remaining: 1 },
    ]);
    expect(book.depth('bid')).toEqual([
      { price: 45, quantity: 1, orders: 1 },
      { price: 40, quantity: 8, orders: 2 },
    ]);
    book.remove(1);
    expect(book.depth('bid')[1]).toEqual({ price: 40, quantity: 3, orders: 1 });
    expect(book.bestBid()).toBe(45);
    expect(book.bestAsk()).toBeNull();
  });
});

function zero() {
  return {
    boughtQuantity: 0,
    boughtCostCents: 0,
    soldQuantity: 0,
    soldProceedsCents: 0,
    soldFromReserved: 0,
    newlyReserved: 0,
  };
}

describe('what the incoming order is after its match', () => {
  const result = (filledQuantity: number, remaining: number) => ({
    fills: [],
    filledQuantity,
    remaining,
    selfTradeCancels: [],
  });
  it('is filled when nothing remains, resting when the rest rests, else cancelled', () => {
    expect(takerStatus(result(5, 0), 0)).toBe('filled');
    expect(takerStatus(result(2, 3), 3)).toBe('partially_filled');
    expect(takerStatus(result(0, 5), 5)).toBe('open');
    expect(takerStatus(result(2, 3), 0)).toBe('cancelled');
  });
});

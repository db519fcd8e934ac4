import { describe, expect, it } from 'vitest';
import type { BookLevel, MarketDetail, OrderBook, OrderResult, Position } from '../../api/types';
import { termsInWords } from './maker-terms';
import {
  contractOf,
  draftOrder,
  makerTerms,
  suggestedPrice,
  type TicketInputs,
  type TraderMeans,
} from './order-draft';
import { describeResult, orderRequest } from './place-order';

const level = (priceCents: number, quantity: number): BookLevel => ({
  priceCents,
  quantity,
  houseQuantity: 0,
  orders: 1,
});

const market = {
  status: 'open',
  exclusive: false,
  options: [
    { id: '1', label: 'Over 65%' },
    { id: '2', label: 'Under 50%' },
  ],
} as MarketDetail;

function bookOf(optionId: string, yesAsks: BookLevel[], yesBids: BookLevel[] = []): OrderBook {
  return {
    optionId,
    yes: { asks: yesAsks, bids: yesBids },
    no: { asks: [], bids: [] },
  } as unknown as OrderBook;
}

const inputs = (change: Partial<TicketInputs> = {}): TicketInputs => ({
  action: 'BUY',
  kind: 'market',
  quantity: '10',
  typed: null,
  timeInForce: 'GTC',
  expiry: '24',
  postOnly: false,
  ...change,
});
const means = (change: Partial<TraderMeans> = {}): TraderMeans => ({
  signedIn: true,
  cashCents: 100_000,
  positions: [],
  ...change,
});
const book = bookOf('1', [level(40, 5), level(45, 20)], [level(38, 7)]);

describe('the order a ticket describes', () => {
  it('starts a market order at the price that fills it from the book, a limit order at its own best price', () => {
    expect(draftOrder(market, '1', 'YES', book, inputs(), means())).toMatchObject({
      price: '45',
      worstCost: 450,
      estimate: { filled: 10, totalCents: 425 },
      problem: null,
    });
    expect(draftOrder(market, '1', 'YES', book, inputs({ kind: 'limit' }), means()).price).toBe('38');
    expect(suggestedPrice({ taken: [level(120, 1)], own: [] }, 'market', 1)).toBe(99);
    expect(suggestedPrice(undefined, 'market', 1)).toBeNull();
  });

  it('keeps a typed price only for the option, side, direction and type it was typed for', () => {
    const typed = { contract: contractOf('1', 'YES', 'BUY', 'limit'), value: '41' };
    expect(draftOrder(market, '1', 'YES', book, inputs({ kind: 'limit', typed }), means()).price).toBe('41');
    expect(draftOrder(market, '1', 'YES', book, inputs({ typed }), means()).price).toBe('45');
  });

  it('reads no book that is not the option’s, and finds no problem before the book arrives', () => {
    const other = draftOrder(market, '2', 'YES', book, inputs({ quantity: '0' }), means());
    expect(other).toMatchObject({ bookForOption: undefined, price: '', problem: null });
  });

  it('says what stands in the way of the order', () => {
    const empty = bookOf('1', [], [level(38, 7)]);
    expect(draftOrder(market, '1', 'YES', empty, inputs(), means()).problem).toBe(
      'Nobody is selling Yes shares of Over 65% right now, so a market order cannot fill. Place a limit order to wait in the book.',
    );
    expect(draftOrder(market, '1', 'YES', book, inputs({ quantity: '1.5' }), means()).problem).toBe(
      'Enter a whole number of shares (at least 1) and a price from 1¢ to 99¢.',
    );
    expect(draftOrder(market, '1', 'YES', book, inputs(), means({ cashCents: 300 })).problem).toBe(
      'This order could cost 4.50 credits, more than the 3.00 credits you have available.',
    );
    const held = { optionId: '1', side: 'YES', quantity: 8, reservedQuantity: 3 } as Position;
    const selling = draftOrder(
      market,
      '1',
      'YES',
      book,
      inputs({ action: 'SELL' }),
      means({ positions: [held] }),
    );
    expect(selling).toMatchObject({ sellable: 5, problem: 'You can sell at most 5 Yes shares of Over 65%.' });
  });
});

describe('sending the order', () => {
  it('sends a market order as a trade at its worst price, a limit order with its time in force and expiry', () => {
    const order = draftOrder(market, '1', 'YES', book, inputs(), means());
    expect(orderRequest(order, 'YES', inputs())).toEqual({
      kind: 'market',
      body: { optionId: '1', side: 'YES', action: 'BUY', quantity: 10, priceCents: 45 },
    });
    const limit = inputs({ kind: 'limit', timeInForce: 'GTD', expiry: '168', postOnly: true });
    expect(orderRequest(draftOrder(market, '1', 'YES', book, limit, means()), 'YES', limit)).toEqual({
      kind: 'limit',
      body: {
        optionId: '1',
        side: 'YES',
        action: 'BUY',
        quantity: 10,
        limitPriceCents: 38,
        timeInForce: 'GTD',
        expiresInHours: 168,
        postOnly: true,
      },
    });
    // Only an order that rests can be post-only; an expiry is only sent with GTD.
    const ioc = inputs({ kind: 'limit', timeInForce: 'IOC', postOnly: true });
    expect(orderRequest(draftOrder(market, '1', 'YES', book, ioc, means()), 'YES', ioc).body).toEqual({
      optionId: '1',
      side: 'YES',
      action: 'BUY',
      quantity: 10,
      limitPriceCents: 38,
      timeInForce: 'IOC',
    });
  });

  it('says when a post-only order would trade on arrival, and always reviews a maker’s terms', () => {
    const crossing = inputs({
      kind: 'limit',
      postOnly: true,
      typed: { contract: contractOf('1', 'YES', 'BUY', 'limit'), value: '40' },
    });
    expect(draftOrder(market, '1', 'YES', book, crossing, means()).problem).toBe(
      'A post-only order only waits in the book, and at this price it would trade now: lower the price, or untick post-only.',
    );
    expect(
      draftOrder(market, '1', 'YES', book, { ...crossing, postOnly: false }, means()).problem,
    ).toBeNull();
    expect(makerTerms(inputs({ kind: 'limit' }))).toBe(false);
    expect(makerTerms(inputs({ kind: 'limit', timeInForce: 'FOK' }))).toBe(true);
    expect(makerTerms(inputs({ kind: 'limit', postOnly: true }))).toBe(true);
    expect(makerTerms(inputs({ kind: 'market', postOnly: true }))).toBe(false);
    expect(termsInWords('GTD', '168', true)).toBe('good for 7 days, post-only');
    expect(termsInWords('GTD', '1', false)).toBe('good for 1 hour');
    expect(termsInWords('FOK', '24', false)).toBe('fill or kill');
  });

  it('tells what an order did in words', () => {
    const result = {
      kind: 'limit',
      side: 'NO',
      action: 'BUY',
      status: 'open',
      filledQuantity: 4,
      averagePriceCents: 31,
      remainingQuantity: 6,
      priceCents: 32,
    } as OrderResult;
    expect(describeResult(result)).toBe('Bought 4 No at 31¢ on average. Limit order open: 6 No at 32¢.');
    expect(describeResult({ ...result, kind: 'market', status: 'filled' } as OrderResult)).toBe(
      'Bought 4 No at 31¢ on average. 6 could not be filled at your price and were cancelled.',
    );
  });
});

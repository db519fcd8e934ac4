import { describe, expect, it } from 'vitest';
import type { MarketDetail, OptionDetail } from '../api/types';
import { estimateFill, markPositions, payoutCents, priceToFill, shownStatus, withLiveTrades } from './market';

function option(id: string, history: { t: string; yesPriceCents: number }[]): OptionDetail {
  return {
    id,
    label: `Option ${id}`,
    yesPriceCents: 59,
    noPriceCents: 41,
    probabilityBps: 5900,
    lastYesPriceCents: 59,
    volumeShares: 0,
    volumeCents: 0,
    houseLiquidityCents: 0,
    resolution: null,
    bestBidCents: 58,
    bestAskCents: 60,
    priceHistory: history,
  };
}

const market = {
  slug: 'm',
  options: [option('1', [{ t: '2026-01-01T10:00:00.000Z', yesPriceCents: 59 }]), option('2', [])],
} as MarketDetail;

describe('following the stream', () => {
  it('moves price, chance and chart with each new trade and skips trades the read already holds', () => {
    const next = withLiveTrades(market, [
      { optionId: '1', yesPriceCents: 50, quantity: 5, takerSide: 'YES', at: '2026-01-01T09:00:00.000Z' },
      { optionId: '1', yesPriceCents: 65, quantity: 5, takerSide: 'YES', at: '2026-01-01T11:00:00.000Z' },
      { optionId: '1', yesPriceCents: 49, quantity: 4, takerSide: 'NO', at: '2026-01-01T12:00:00.000Z' },
    ]);
    const moved = next.options[0]!;
    expect(moved).toMatchObject({
      yesPriceCents: 49,
      noPriceCents: 51,
      probabilityBps: 4900,
      lastYesPriceCents: 49,
      // The two trades after the read: 5 × 65¢ taken on YES and 4 × 51¢ on NO; the first is already counted.
      volumeShares: 9,
      volumeCents: 5 * 65 + 4 * 51,
    });
    expect(moved.priceHistory.map((point) => point.yesPriceCents)).toEqual([59, 65, 49]);
    expect(next.options[1]).toBe(market.options[1]);
  });

  it('keeps an exclusive event’s chances as read: a trade in one option moves all of them, and they add up', () => {
    const exclusive = {
      ...market,
      exclusive: true,
      options: market.options.map((o) => ({
        ...o,
        probabilityBps: 5000,
        yesPriceCents: 50,
        noPriceCents: 50,
      })),
    } as MarketDetail;
    const next = withLiveTrades(exclusive, [
      { optionId: '1', yesPriceCents: 70, quantity: 5, takerSide: 'YES', at: '2026-01-01T11:00:00.000Z' },
    ]);
    expect(next.options[0]).toMatchObject({
      probabilityBps: 5000,
      yesPriceCents: 50,
      lastYesPriceCents: 70,
      volumeShares: 5,
    });
    expect(next.options[0]!.priceHistory.map((point) => point.yesPriceCents)).toEqual([59, 70]);
    expect(next.options.reduce((sum, o) => sum + o.probabilityBps, 0)).toBe(10_000);
  });
});

describe('the ticket estimate', () => {
  const asks = [
    { priceCents: 60, quantity: 40, orders: 0, houseQuantity: 40 },
    { priceCents: 61, quantity: 50, orders: 1, houseQuantity: 30 },
    { priceCents: 63, quantity: 100, orders: 0, houseQuantity: 100 },
  ];

  it('walks the book up to the limit, with the average price', () => {
    expect(estimateFill(asks, 'BUY', 100, 60)).toEqual({
      filled: 40,
      totalCents: 2400,
      averageCents: 60,
      worstCents: 60,
    });
    expect(estimateFill(asks, 'BUY', 100, 63)).toEqual({
      filled: 100,
      totalCents: 40 * 60 + 50 * 61 + 10 * 63,
      averageCents: 61,
      worstCents: 63,
    });
    const bids = [{ priceCents: 58, quantity: 10, orders: 1, houseQuantity: 0 }];
    expect(estimateFill(bids, 'SELL', 5, 59).filled).toBe(0);
  });

  it('finds the price that fills the whole order', () => {
    expect(priceToFill(asks, 40)).toBe(60);
    expect(priceToFill(asks, 41)).toBe(61);
    expect(priceToFill(asks, 1000)).toBe(63);
    expect(priceToFill([], 10)).toBeNull();
  });

  it('pays 100 to the winning side, nothing to the losing one, half on a void', () => {
    expect(payoutCents('YES', 'YES')).toBe(100);
    expect(payoutCents('NO', 'YES')).toBe(0);
    expect(payoutCents('NO', 'VOID')).toBe(50);
  });
});

describe('what a trader is shown', () => {
  it('treats a market past its closing time as closing, before the close itself arrives', () => {
    const closesAt = '2026-01-01T10:00:00.000Z';
    expect(shownStatus('open', closesAt, Date.parse('2026-01-01T09:59:59.000Z'))).toBe('open');
    expect(shownStatus('open', closesAt, Date.parse('2026-01-01T10:00:00.000Z'))).toBe('closing');
    expect(shownStatus('resolved', closesAt, Date.parse('2026-01-02T00:00:00.000Z'))).toBe('resolved');
  });

  it('values positions at the latest price of their side, as the service does, and leaves resolved ones alone', () => {
    const position = {
      optionId: '1',
      side: 'NO' as const,
      quantity: 10,
      costCents: 400,
      resolution: null,
      markPriceCents: 40,
      valueCents: 400,
      unrealizedPnlCents: 0,
    };
    const [marked] = markPositions([position], [{ id: '1', lastYesPriceCents: 30 }]);
    expect(marked).toMatchObject({ markPriceCents: 70, valueCents: 700, unrealizedPnlCents: 300 });
    const resolved = { ...position, resolution: 'NO' as const, markPriceCents: 100 };
    expect(markPositions([resolved], [{ id: '1', lastYesPriceCents: 30 }])[0]).toBe(resolved);
  });
});

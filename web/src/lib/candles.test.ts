import { describe, expect, it } from 'vitest';
import type { OptionDetail } from '../api/types';
import {
  type Candle,
  type CandleTrade,
  candlesFrom,
  defaultChartView,
  defaultInterval,
  upTo,
  withTrade,
  withTrades,
} from './candles';

const NOW = Date.parse('2026-03-01T12:30:20.000Z');

function candle(t: string, o: number, h: number, l: number, c: number, v: number, vc: number): Candle {
  return { t, o, h, l, c, v, vc };
}

function trade(
  at: string,
  yesPriceCents: number,
  quantity: number,
  takerSide: 'YES' | 'NO' = 'YES',
): CandleTrade {
  return { at, yesPriceCents, quantity, takerSide };
}

function option(history: string[]): OptionDetail {
  return {
    id: '7',
    label: 'Rain',
    yesPriceCents: 50,
    noPriceCents: 50,
    probabilityBps: 5000,
    lastYesPriceCents: history.length > 0 ? 50 : null,
    volumeShares: 0,
    volumeCents: 0,
    houseLiquidityCents: 1000,
    resolution: null,
    bestBidCents: null,
    bestAskCents: null,
    priceHistory: history.map((t) => ({ t, yesPriceCents: 50 })),
  };
}

describe('a live trade in the candles', () => {
  const read = [
    candle('2026-03-01T12:28:00.000Z', 40, 44, 39, 42, 30, 1_240),
    candle('2026-03-01T12:29:00.000Z', 42, 42, 42, 42, 0, 0),
    candle('2026-03-01T12:30:00.000Z', 45, 46, 45, 46, 10, 455),
  ];

  it('moves the last candle: close, high, low and both volumes, the taker’s side price counting', () => {
    const higher = withTrade(read, trade('2026-03-01T12:30:40.000Z', 51, 4), '1m');
    expect(higher[2]).toEqual(candle('2026-03-01T12:30:00.000Z', 45, 51, 45, 51, 14, 455 + 4 * 51));
    const lower = withTrade(higher, trade('2026-03-01T12:30:50.000Z', 43, 5, 'NO'), '1m');
    expect(lower[2]).toEqual(candle('2026-03-01T12:30:00.000Z', 45, 51, 43, 43, 19, 455 + 204 + 5 * 57));
    expect(lower.slice(0, 2)).toEqual(read.slice(0, 2));
  });

  it('opens a new candle for a new interval, the intervals between flat at the close with no volume', () => {
    const later = withTrade(read, trade('2026-03-01T12:33:05.000Z', 48, 2), '1m');
    expect(later.slice(3)).toEqual([
      candle('2026-03-01T12:31:00.000Z', 46, 46, 46, 46, 0, 0),
      candle('2026-03-01T12:32:00.000Z', 46, 46, 46, 46, 0, 0),
      candle('2026-03-01T12:33:00.000Z', 48, 48, 48, 48, 2, 96),
    ]);
  });

  it('makes an interval read without trades open at its first trade', () => {
    const flat = [candle('2026-03-01T12:00:00.000Z', 42, 42, 42, 42, 0, 0)];
    expect(withTrade(flat, trade('2026-03-01T12:10:00.000Z', 38, 3), '1h')).toEqual([
      candle('2026-03-01T12:00:00.000Z', 38, 38, 38, 38, 3, 114),
    ]);
  });

  it('buckets by the interval’s width since the epoch: hours and UTC days', () => {
    const days = [candle('2026-03-01T00:00:00.000Z', 40, 40, 40, 40, 1, 40)];
    const next = withTrades(
      days,
      [trade('2026-03-01T23:59:59.000Z', 60, 1), trade('2026-03-02T00:00:00.000Z', 30, 2)],
      '1d',
    );
    expect(next).toEqual([
      candle('2026-03-01T00:00:00.000Z', 40, 60, 40, 60, 2, 100),
      candle('2026-03-02T00:00:00.000Z', 30, 30, 30, 30, 2, 60),
    ]);
  });

  it('starts the candles of an option that had none with its first trade', () => {
    expect(withTrade([], trade('2026-03-01T12:30:40.000Z', 55, 5, 'NO'), '1m')).toEqual([
      candle('2026-03-01T12:30:00.000Z', 55, 55, 55, 55, 5, 225),
    ]);
  });

  it('ignores a trade before the first candle, outside what is shown', () => {
    expect(withTrade(read, trade('2026-03-01T11:00:00.000Z', 10, 5), '1m')).toBe(read);
  });
});

describe('the candles up to now', () => {
  it('run flat at the last close to the current interval', () => {
    const read = [candle('2026-03-01T10:00:00.000Z', 40, 44, 39, 42, 30, 1_240)];
    expect(upTo(read, '1h', NOW).map((c) => [c.t, c.c, c.v])).toEqual([
      ['2026-03-01T10:00:00.000Z', 42, 30],
      ['2026-03-01T11:00:00.000Z', 42, 0],
      ['2026-03-01T12:00:00.000Z', 42, 0],
    ]);
    expect(upTo([], '1h', NOW)).toEqual([]);
  });

  it('are read from the start of their window', () => {
    expect(candlesFrom('1m', NOW)).toBe('2026-03-01T09:31:00.000Z');
    expect(candlesFrom('1h', NOW)).toBe('2026-02-22T13:00:00.000Z');
  });
});

describe('the chart a market opens on', () => {
  const busy = option([1, 2, 3, 4, 5].map((m) => `2026-03-01T12:0${m}:00.000Z`));
  const thin = option(['2026-03-01T12:01:00.000Z', '2026-03-01T12:02:00.000Z']);

  it('is the candles for a market with a handful of trades in the range, the line below that', () => {
    expect(defaultChartView({ exclusive: false }, busy, '1d', NOW)).toBe('candles');
    expect(defaultChartView({ exclusive: false }, thin, '1d', NOW)).toBe('line');
    // Trades older than the range do not count.
    expect(defaultChartView({ exclusive: false }, busy, '1d', NOW + 2 * 86_400_000)).toBe('line');
  });

  it('is always the line for an exclusive event: one line per option', () => {
    expect(defaultChartView({ exclusive: true }, busy, '1d', NOW)).toBe('line');
  });

  it('draws the finest interval whose window holds the trades', () => {
    expect(defaultInterval(busy, NOW)).toBe('1m');
    expect(defaultInterval(option(['2026-02-28T12:00:00.000Z']), NOW)).toBe('1h');
    expect(defaultInterval(option(['2026-01-01T12:00:00.000Z']), NOW)).toBe('1d');
  });
});

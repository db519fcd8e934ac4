import { describe, expect, it } from 'vitest';
import type { OptionDetail } from '../api/types';
import { chartSeries, valueAt } from './chart-series';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

function option(id: string, history: [string, number][], last: number | null, start = 50): OptionDetail {
  return {
    id,
    label: `Option ${id}`,
    yesPriceCents: last ?? start,
    noPriceCents: 100 - (last ?? start),
    probabilityBps: (last ?? start) * 100,
    lastYesPriceCents: last,
    volumeShares: 0,
    volumeCents: 0,
    houseLiquidityCents: 1000,
    resolution: null,
    bestBidCents: null,
    bestAskCents: null,
    priceHistory: history.map(([t, yesPriceCents]) => ({ t, yesPriceCents })),
  };
}

describe('the chart’s series', () => {
  const options = [
    option(
      '1',
      [
        ['2026-03-01T08:00:00.000Z', 40],
        ['2026-03-01T10:00:00.000Z', 55],
      ],
      55,
    ),
    option('2', [], 30),
    option('3', [], null, 20),
  ];
  const series = chartSeries(options, '1d', NOW);

  it('draws every option, traded or not, each with its own place for colour and dash', () => {
    expect(series.map((s) => [s.label, s.kind, s.index, s.last])).toEqual([
      ['Option 1', 'traded', 0, 55],
      ['Option 2', 'flat', 1, 30],
      ['Option 3', 'house', 2, 20],
    ]);
  });

  it('samples at even steps across the range, so time is drawn to scale', () => {
    for (const item of series) {
      const steps = item.points.slice(1).map((point, i) => point.time - (item.points[i]?.time ?? 0));
      expect(new Set(steps).size).toBe(1);
      expect(item.points[0]!.time).toBeLessThanOrEqual((NOW - 86_400_000) / 1000);
      expect(item.points[item.points.length - 1]!.time).toBeGreaterThanOrEqual(NOW / 1000);
      expect(item.points.length).toBeLessThan(300);
    }
  });

  it('holds a price until the next trade and draws nothing before the first', () => {
    const traded = series[0]!;
    expect(valueAt(traded, Date.parse('2026-03-01T07:59:00.000Z') / 1000)).toBeNull();
    expect(valueAt(traded, Date.parse('2026-03-01T09:00:00.000Z') / 1000)).toBe(40);
    expect(valueAt(traded, NOW / 1000)).toBe(55);
    expect(traded.points.filter((point) => point.value === undefined).length).toBeGreaterThan(0);
  });

  it('keeps a trade newer than the last step as the price now', () => {
    const fresh = chartSeries([option('9', [['2026-03-01T11:59:59.000Z', 77]], 77)], '1d', NOW)[0]!;
    expect(fresh.points[fresh.points.length - 1]!.value).toBe(77);
  });

  it('ends every line of an exclusive event at its chance now, the chances adding up to 100 %', () => {
    const exclusive = [
      {
        ...option('1', [['2026-03-01T10:00:00.000Z', 40]], 40),
        probabilityBps: 4520,
        houseLiquidityCents: 0,
      },
      { ...option('2', [], null), probabilityBps: 3480, houseLiquidityCents: 0 },
      { ...option('3', [], null), probabilityBps: 2000, houseLiquidityCents: 0 },
    ];
    const drawn = chartSeries(exclusive, '1d', NOW, { exclusive: true });
    expect(drawn.map((s) => [s.kind, s.last, s.chanceBps])).toEqual([
      ['traded', 45.2, 4520],
      ['house', 34.8, 3480],
      ['house', 20, 2000],
    ]);
    const traded = drawn[0]!;
    expect(valueAt(traded, Date.parse('2026-03-01T11:00:00.000Z') / 1000)).toBe(40);
    expect(traded.points[traded.points.length - 1]!.value).toBe(45.2);
    expect(drawn.reduce((sum, s) => sum + (s.chanceBps ?? 0), 0)).toBe(10_000);
  });

  it('draws nothing for an option with neither a trade nor a house quote', () => {
    const bare = { ...option('7', [], null), houseLiquidityCents: 0 };
    const [drawn] = chartSeries([bare], '1d', NOW);
    expect(drawn).toMatchObject({ kind: 'none', last: null });
    expect(drawn!.points.every((point) => point.value === undefined)).toBe(true);
  });
});

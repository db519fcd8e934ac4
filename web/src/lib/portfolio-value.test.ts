import { describe, expect, it } from 'vitest';
import { openingRange, type ValuePoint, valueChange, valuePoints } from './portfolio-value';

function point(t: string, cash: number, positions: number): ValuePoint {
  return {
    t,
    cashCents: cash,
    reservedCents: 0,
    positionsValueCents: positions,
    totalValueCents: cash + positions,
  };
}

const history = [
  point('2026-03-01T10:00:00.000Z', 100_000, 0),
  point('2026-03-01T11:00:00.000Z', 94_000, 6_000),
  point('2026-03-01T11:20:00.000Z', 94_000, 7_500),
];
const NOW = Date.parse('2026-03-01T11:45:00.000Z');

describe('the portfolio’s value over time', () => {
  it('ends where the portfolio stands now, the earlier points as read', () => {
    const now = {
      cashCents: 90_000,
      reservedCents: 500,
      positionsValueCents: 11_000,
      totalValueCents: 101_500,
    };
    const points = valuePoints(history, now, NOW);
    expect(points.slice(0, 2)).toEqual(history.slice(0, 2));
    expect(points[2]).toEqual({ t: '2026-03-01T11:45:00.000Z', ...now });
  });

  it('is the history as read until the portfolio is known, and none without one', () => {
    expect(valuePoints(history, undefined, NOW)).toBe(history);
    expect(
      valuePoints([], { cashCents: 1, reservedCents: 0, positionsValueCents: 0, totalValueCents: 1 }, NOW),
    ).toEqual([]);
  });

  it('changes by the difference between its first and last points, in credits and percent', () => {
    expect(valueChange(history)).toEqual({
      startCents: 100_000,
      nowCents: 101_500,
      changeCents: 1_500,
      percent: 1.5,
    });
    expect(valueChange([point('2026-03-01T10:00:00.000Z', 0, 0)])?.percent).toBeNull();
    expect(valueChange([])).toBeNull();
  });
});

describe('the period the value chart opens on', () => {
  it('is the week, or the day for an account younger than a day', () => {
    expect(openingRange('2026-02-20T10:00:00.000Z', NOW)).toBe('1w');
    expect(openingRange('2026-03-01T09:00:00.000Z', NOW)).toBe('1d');
  });
});

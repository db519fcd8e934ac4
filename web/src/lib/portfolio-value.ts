import type { GetAnswer } from './hooks';

export type PortfolioHistory = GetAnswer<'/api/me/portfolio-history'>;
export type ValuePoint = PortfolioHistory['data'][number];
export type ValueRange = PortfolioHistory['range'];

export const VALUE_RANGES: { value: ValueRange; label: string; span: string }[] = [
  { value: '1d', label: '1 day', span: 'the past day' },
  { value: '1w', label: '1 week', span: 'the past week' },
  { value: '1m', label: '1 month', span: 'the past month' },
  { value: 'all', label: 'All', span: 'since you joined' },
];

const DAY_MS = 86_400_000;

/**
 * The period the chart opens on: the week, or for an account younger than a day the day, whose point every five
 * minutes draws its first hours (the week has a point an hour).
 */
export function openingRange(joinedAt: string, now: number): ValueRange {
  return now - Date.parse(joinedAt) < DAY_MS ? '1d' : '1w';
}

export interface ValueChange {
  startCents: number;
  nowCents: number;
  changeCents: number;
  /** The change against the start in percent, null from a start of nothing. */
  percent: number | null;
}

/** The portfolio summary's figures that a point of the history holds too. */
export type ValueNow = Omit<ValuePoint, 't'>;

/**
 * The value over time as read, its last point (the value when read) brought up to now with the portfolio as it
 * stands: the portfolio read follows every fill, so the chart ends where the summary above it does.
 */
export function valuePoints(history: ValuePoint[], current: ValueNow | undefined, now: number): ValuePoint[] {
  const last = history[history.length - 1];
  if (!last || !current) return history;
  const figures: ValueNow = {
    cashCents: current.cashCents,
    reservedCents: current.reservedCents,
    positionsValueCents: current.positionsValueCents,
    totalValueCents: current.totalValueCents,
  };
  return [
    ...history.slice(0, -1),
    { t: new Date(Math.max(now, Date.parse(last.t))).toISOString(), ...figures },
  ];
}

/** From the first point of the range to the last. */
export function valueChange(points: ValuePoint[]): ValueChange | null {
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last) return null;
  const changeCents = last.totalValueCents - first.totalValueCents;
  return {
    startCents: first.totalValueCents,
    nowCents: last.totalValueCents,
    changeCents,
    percent: first.totalValueCents > 0 ? (changeCents / first.totalValueCents) * 100 : null,
  };
}

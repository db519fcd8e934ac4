import type { Side } from '../../exchange/money.js';
import type { Outcome } from '../../exchange/positions.js';
import { markOf } from '../../exchange/valuation.js';
import type { Interval } from './candles.js';

/** Portfolio history: a trader's value at evenly spaced times, worked back from what they hold now. */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export type HistoryRange = '1d' | '1w' | '1m' | 'all';

/** The span and spacing of each range: 288 points for a day, 168 for a week, 180 for a month. */
const RANGES: Record<Exclude<HistoryRange, 'all'>, { spanMs: number; stepMs: number }> = {
  '1d': { spanMs: DAY, stepMs: 5 * MINUTE },
  '1w': { spanMs: 7 * DAY, stepMs: HOUR },
  '1m': { spanMs: 30 * DAY, stepMs: 4 * HOUR },
};
/** All time takes the finest of these spacings that keeps it to MAX_ALL_POINTS. */
const ALL_STEPS = [5 * MINUTE, HOUR, 4 * HOUR, DAY, 7 * DAY];
const MAX_ALL_POINTS = 500;

/** The times of a history: every multiple of the step after `start` and before `now`. */
export interface HistoryPlan {
  stepMs: number;
  /** The slot (time ÷ step) of the first point; its time is `firstSlot × stepMs`. */
  firstSlot: number;
  count: number;
  /** The candles whose closes mark positions at these times: the widest that divides the step. */
  markInterval: Interval;
}

export function planHistory(range: HistoryRange, accountCreatedAt: number, now: number): HistoryPlan {
  const start = range === 'all' ? accountCreatedAt : Math.max(accountCreatedAt, now - RANGES[range].spanMs);
  const stepMs =
    range === 'all'
      ? (ALL_STEPS.find((step) => (now - start) / step <= MAX_ALL_POINTS) ?? (ALL_STEPS.at(-1) as number))
      : RANGES[range].stepMs;
  const firstSlot = Math.floor(start / stepMs) + 1;
  const lastSlot = Math.ceil(now / stepMs) - 1;
  const markInterval: Interval = stepMs % DAY === 0 ? '1d' : stepMs % HOUR === 0 ? '1h' : '1m';
  return { stepMs, firstSlot, count: Math.max(0, lastSlot - firstSlot + 1), markInterval };
}

export interface HistoryPoint {
  t: string;
  cashCents: number;
  reservedCents: number;
  positionsValueCents: number;
  totalValueCents: number;
}

export interface HoldingNow {
  optionId: number;
  side: Side;
  quantity: number;
  resolution: Outcome | null;
  /** What a YES share pays once resolved (a NO share the rest of 100). */
  yesPayoutCents: number | null;
  resolvedAt: number | null;
}

export interface HistoryInputs {
  plan: HistoryPlan;
  balancesNow: { cashCents: number; reservedCents: number };
  holdingsNow: HoldingNow[];
  /** Movements per slot at or after the first point's time. */
  balanceChanges: { slot: number; kind: 'cash' | 'reserved'; amount: number }[];
  holdingChanges: { slot: number; optionId: number; side: Side; quantity: number }[];
  /** Candle closes by start time (ms), oldest first, the last one before the first point included. */
  marks: { optionId: number; bucket: number; close: number }[];
  markWidthMs: number;
  /** The YES prices conversions booked the options at, by time (ms), oldest first, as `marks`. */
  conversionMarks: { optionId: number; at: number; yesCents: number }[];
}

/**
 * The value at each planned time. Whatever happened at or after a time (a posting, a trade, a conversion, a
 * settlement) is taken back from what is held now; positions are marked by the valuation rule with what was known
 * then: the outcome if the option was resolved by then, the close of the last candle that ended by then (its last
 * trade), the price of the last conversion before then.
 */
export function historyPoints(input: HistoryInputs): HistoryPoint[] {
  const { plan } = input;
  // Movements by point: index j holds those of slot firstSlot + j, the last index everything after the last point.
  const byPoint = (slot: number) => Math.min(Math.max(slot - plan.firstSlot, 0), plan.count);
  const empty = () => new Array<number>(plan.count + 1).fill(0);
  const cash = empty();
  const reserved = empty();
  for (const change of input.balanceChanges) {
    add(change.kind === 'cash' ? cash : reserved, byPoint(change.slot), change.amount);
  }
  const holdings = input.holdingsNow.map((holding) => ({ ...holding, changes: empty() }));
  const byKey = new Map(holdings.map((holding) => [`${holding.optionId}:${holding.side}`, holding]));
  for (const change of input.holdingChanges) {
    const holding = byKey.get(`${change.optionId}:${change.side}`);
    if (holding) add(holding.changes, byPoint(change.slot), change.quantity);
  }
  const width = input.markWidthMs;
  const trades = seriesByPoint(
    plan,
    input.marks.map((mark) => ({
      optionId: mark.optionId,
      knownAt: mark.bucket + width - 1,
      yes: mark.close,
    })),
  );
  const conversions = seriesByPoint(
    plan,
    input.conversionMarks.map((mark) => ({ optionId: mark.optionId, knownAt: mark.at, yes: mark.yesCents })),
  );
  // Walking back from now: the state at point k is now less every movement of point k and later.
  let cashCents = input.balancesNow.cashCents - (cash[plan.count] as number);
  let reservedCents = input.balancesNow.reservedCents - (reserved[plan.count] as number);
  const quantities = holdings.map((holding) => holding.quantity - (holding.changes[plan.count] as number));
  const points: HistoryPoint[] = new Array(plan.count);
  for (let k = plan.count - 1; k >= 0; k--) {
    cashCents -= cash[k] as number;
    reservedCents -= reserved[k] as number;
    const time = (plan.firstSlot + k) * plan.stepMs;
    let positionsValueCents = 0;
    holdings.forEach((holding, index) => {
      const quantity = (quantities[index] as number) - (holding.changes[k] as number);
      quantities[index] = quantity;
      if (quantity === 0) return;
      const resolved = holding.resolvedAt !== null && holding.resolvedAt < time;
      const mark = markOf(holding.side, {
        resolution: resolved ? holding.resolution : null,
        yesPayoutCents: holding.yesPayoutCents,
        lastTradeYesCents: trades.get(holding.optionId)?.[k] ?? null,
        lastConversionYesCents: conversions.get(holding.optionId)?.[k] ?? null,
      });
      positionsValueCents += quantity * (mark ?? 0);
    });
    points[k] = {
      t: new Date(time).toISOString(),
      cashCents,
      reservedCents,
      positionsValueCents,
      totalValueCents: cashCents + reservedCents + positionsValueCents,
    };
  }
  return points;
}

function add(sums: number[], index: number, amount: number): void {
  sums[index] = (sums[index] ?? 0) + amount;
}

/** Per option, the last YES price known strictly before each point (null before any), from prices by time. */
function seriesByPoint(
  plan: HistoryPlan,
  prices: { optionId: number; knownAt: number; yes: number }[],
): Map<number, (number | null)[]> {
  const out = new Map<number, (number | null)[]>();
  const byOption = new Map<number, { knownAt: number; yes: number }[]>();
  for (const price of prices) {
    const list = byOption.get(price.optionId) ?? [];
    list.push(price);
    byOption.set(price.optionId, list);
  }
  for (const [optionId, known] of byOption) {
    const series: (number | null)[] = [];
    let next = 0;
    let yes: number | null = null;
    for (let k = 0; k < plan.count; k++) {
      const time = (plan.firstSlot + k) * plan.stepMs;
      for (; next < known.length && (known[next] as { knownAt: number }).knownAt < time; next++) {
        yes = (known[next] as { yes: number }).yes;
      }
      series.push(yes);
    }
    out.set(optionId, series);
  }
  return out;
}

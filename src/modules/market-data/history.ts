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
 *
 * A holding's value changes only at the points where its quantity, its last price or its resolution does, so the
 * walk back values every holding at the last point and then, at each earlier point, only the holdings that changed
 * there: the work grows with the holdings plus their changes, not with holdings × points.
 */
export function historyPoints(input: HistoryInputs): HistoryPoint[] {
  const { plan } = input;
  // Movements by point: index j holds those of slot firstSlot + j, the last index everything after the last point.
  const byPoint = (slot: number) => Math.min(Math.max(slot - plan.firstSlot, 0), plan.count);
  const cash = slots(plan);
  const reserved = slots(plan);
  for (const change of input.balanceChanges) {
    add(change.kind === 'cash' ? cash : reserved, byPoint(change.slot), change.amount);
  }
  const holdings = valuedHoldings(input, byPoint);
  // Walking back from now: the state at point k is now less every movement of point k and later.
  let cashCents = input.balancesNow.cashCents - (cash[plan.count] as number);
  let reservedCents = input.balancesNow.reservedCents - (reserved[plan.count] as number);
  const points: HistoryPoint[] = new Array(plan.count);
  for (let k = plan.count - 1; k >= 0; k--) {
    cashCents -= cash[k] as number;
    reservedCents -= reserved[k] as number;
    const time = (plan.firstSlot + k) * plan.stepMs;
    const positionsValueCents = holdings.valueAt(k, time);
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

/** An array of sums, one per point and one more for everything after the last point. */
function slots(plan: HistoryPlan): number[] {
  return new Array<number>(plan.count + 1).fill(0);
}

/**
 * The holdings now, each with its quantity movements per point, and `changed[k]`: the holdings whose quantity,
 * price or resolution differs between point k and point k + 1 (the last point values every holding anyway).
 */
function holdingMovements(input: HistoryInputs, byPoint: (slot: number) => number) {
  const { plan } = input;
  const holdings = input.holdingsNow.map((holding) => ({ ...holding, changes: slots(plan) }));
  const changed: number[][] = Array.from({ length: plan.count }, () => []);
  const changedBefore = (index: number, point: number) => {
    if (point >= 0 && point < plan.count - 1) changed[point]?.push(index);
  };
  const byKey = new Map(holdings.map((holding, index) => [`${holding.optionId}:${holding.side}`, index]));
  for (const change of input.holdingChanges) {
    const index = byKey.get(`${change.optionId}:${change.side}`);
    if (index === undefined) continue;
    const point = byPoint(change.slot);
    add((holdings[index] as (typeof holdings)[number]).changes, point, change.quantity);
    changedBefore(index, point);
  }
  // A price or an outcome known at `at` counts from the first point whose time is later than it on, so the
  // holding changes between the point before that one and it.
  const firstPointAfter = (at: number) => Math.floor(at / plan.stepMs) - plan.firstSlot + 1;
  const indexesOf = new Map<number, number[]>();
  holdings.forEach((holding, index) => {
    indexesOf.set(holding.optionId, [...(indexesOf.get(holding.optionId) ?? []), index]);
    if (holding.resolvedAt !== null) changedBefore(index, firstPointAfter(holding.resolvedAt) - 1);
  });
  for (const price of [...tradePrices(input), ...conversionPrices(input)]) {
    for (const index of indexesOf.get(price.optionId) ?? []) {
      changedBefore(index, firstPointAfter(price.knownAt) - 1);
    }
  }
  return { holdings, changed };
}

/**
 * The holdings' value at each point, asked from the last point back to the first: `valueAt(k, time)` takes back
 * the movements of point k and revalues the holdings that changed between point k and point k + 1 (all of them
 * at the last point), keeping the running total.
 */
function valuedHoldings(input: HistoryInputs, byPoint: (slot: number) => number) {
  const { plan } = input;
  const { holdings, changed } = holdingMovements(input, byPoint);
  const trades = seriesByPoint(plan, tradePrices(input));
  const conversions = seriesByPoint(plan, conversionPrices(input));
  const quantities = holdings.map((holding) => holding.quantity - (holding.changes[plan.count] as number));
  const values = new Array<number>(holdings.length).fill(0);
  const revaluedAt = new Array<number>(holdings.length).fill(-1);
  let total = 0;
  const revalue = (index: number, k: number, time: number) => {
    if (revaluedAt[index] === k) return;
    revaluedAt[index] = k;
    const holding = holdings[index] as (typeof holdings)[number];
    const quantity = (quantities[index] as number) - (holding.changes[k] as number);
    quantities[index] = quantity;
    const resolved = holding.resolvedAt !== null && holding.resolvedAt < time;
    const mark =
      quantity === 0
        ? null
        : markOf(holding.side, {
            resolution: resolved ? holding.resolution : null,
            yesPayoutCents: holding.yesPayoutCents,
            lastTradeYesCents: trades.get(holding.optionId)?.[k] ?? null,
            lastConversionYesCents: conversions.get(holding.optionId)?.[k] ?? null,
          });
    const value = quantity * (mark ?? 0);
    total += value - (values[index] as number);
    values[index] = value;
  };
  return {
    valueAt(k: number, time: number): number {
      const revalued = k === plan.count - 1 ? holdings.keys() : (changed[k] ?? []);
      for (const index of revalued) revalue(index, k, time);
      return total;
    },
  };
}

/** The candles' closes, each known from the end of its candle on. */
function tradePrices(input: HistoryInputs) {
  const width = input.markWidthMs;
  return input.marks.map((mark) => ({
    optionId: mark.optionId,
    knownAt: mark.bucket + width - 1,
    yes: mark.close,
  }));
}

/** The conversions' prices, each known from its time on. */
function conversionPrices(input: HistoryInputs) {
  return input.conversionMarks.map((mark) => ({
    optionId: mark.optionId,
    knownAt: mark.at,
    yes: mark.yesCents,
  }));
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

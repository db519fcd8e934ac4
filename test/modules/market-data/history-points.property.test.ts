import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Side } from '../../../src/exchange/money.js';
import type { Outcome } from '../../../src/exchange/positions.js';
import { markOf } from '../../../src/exchange/valuation.js';
import {
  type HistoryInputs,
  type HistoryPoint,
  historyPoints,
  planHistory,
} from '../../../src/modules/market-data/history.js';

/**
 * The value over time revalues only the holdings that changed at each point; its points must be those of valuing
 * every holding at every point from what was known then. The reference below does exactly that, the plain way, for
 * random holdings, movements, candles, conversions and resolutions around the range (before it, in it, after it).
 */

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 10, 28, 7, 30);

/** The last price known strictly before `time` (knownAt < time), null before any. */
function lastBefore(prices: { knownAt: number; yes: number }[], time: number): number | null {
  let yes: number | null = null;
  for (const price of [...prices].sort((a, b) => a.knownAt - b.knownAt))
    if (price.knownAt < time) yes = price.yes;
  return yes;
}

function reference(input: HistoryInputs): HistoryPoint[] {
  const { plan } = input;
  const slotTime = (slot: number) => slot * plan.stepMs;
  return Array.from({ length: plan.count }, (_, k) => {
    const time = slotTime(plan.firstSlot + k);
    // What happened at or after a point's slot is taken back from now.
    const after = (slot: number) => slot >= plan.firstSlot + k;
    const moved = (kind: 'cash' | 'reserved') =>
      input.balanceChanges
        .filter((c) => c.kind === kind && after(c.slot))
        .reduce((sum, c) => sum + c.amount, 0);
    const cashCents = input.balancesNow.cashCents - moved('cash');
    const reservedCents = input.balancesNow.reservedCents - moved('reserved');
    let positionsValueCents = 0;
    for (const holding of input.holdingsNow) {
      const quantity =
        holding.quantity -
        input.holdingChanges
          .filter((c) => c.optionId === holding.optionId && c.side === holding.side && after(c.slot))
          .reduce((sum, c) => sum + c.quantity, 0);
      if (quantity === 0) continue;
      const resolved = holding.resolvedAt !== null && holding.resolvedAt < time;
      const trades = input.marks
        .filter((m) => m.optionId === holding.optionId)
        .map((m) => ({ knownAt: m.bucket + input.markWidthMs - 1, yes: m.close }));
      const conversions = input.conversionMarks
        .filter((m) => m.optionId === holding.optionId)
        .map((m) => ({ knownAt: m.at, yes: m.yesCents }));
      const mark = markOf(holding.side, {
        resolution: resolved ? holding.resolution : null,
        yesPayoutCents: holding.yesPayoutCents,
        lastTradeYesCents: lastBefore(trades, time),
        lastConversionYesCents: lastBefore(conversions, time),
      });
      positionsValueCents += quantity * (mark ?? 0);
    }
    return {
      t: new Date(time).toISOString(),
      cashCents,
      reservedCents,
      positionsValueCents,
      totalValueCents: cashCents + reservedCents + positionsValueCents,
    };
  });
}

const OPTIONS = [1, 2, 3, 4, 5];
const sides: Side[] = ['YES', 'NO'];

/** Random inputs of a week (hourly points, hourly candles) for a trader registered 3 to 12 days ago. */
const inputs = fc
  .record({
    registeredHoursAgo: fc.integer({ min: 30, max: 300 }),
    holdings: fc.uniqueArray(
      fc.record({
        optionId: fc.constantFrom(...OPTIONS),
        side: fc.constantFrom(...sides),
        quantity: fc.integer({ min: 0, max: 50 }),
        resolution: fc.option(fc.constantFrom<Outcome>('YES', 'NO', 'VOID'), { nil: null }),
        yesPayoutCents: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
        resolvedHoursAgo: fc.option(fc.integer({ min: -5, max: 200 }), { nil: null }),
      }),
      { selector: (h) => `${h.optionId}:${h.side}`, maxLength: 10 },
    ),
    balanceChanges: fc.array(
      fc.record({
        hoursAgo: fc.integer({ min: -2, max: 200 }),
        kind: fc.constantFrom<'cash' | 'reserved'>('cash', 'reserved'),
        amount: fc.integer({ min: -5_000, max: 5_000 }),
      }),
      { maxLength: 20 },
    ),
    holdingChanges: fc.array(
      fc.record({
        hoursAgo: fc.integer({ min: -2, max: 200 }),
        optionId: fc.constantFrom(...OPTIONS),
        side: fc.constantFrom(...sides),
        quantity: fc.integer({ min: -20, max: 20 }),
      }),
      { maxLength: 30 },
    ),
    candles: fc.array(
      fc.record({
        hoursAgo: fc.integer({ min: 0, max: 250 }),
        optionId: fc.constantFrom(...OPTIONS),
        close: fc.integer({ min: 1, max: 99 }),
      }),
      { maxLength: 40 },
    ),
    conversions: fc.array(
      fc.record({
        minutesAgo: fc.integer({ min: 0, max: 15_000 }),
        optionId: fc.constantFrom(...OPTIONS),
        yes: fc.integer({ min: 1, max: 99 }),
      }),
      { maxLength: 15 },
    ),
  })
  .map((r): HistoryInputs => {
    const plan = planHistory('1w', NOW - r.registeredHoursAgo * HOUR, NOW);
    const slotOf = (hoursAgo: number) => Math.floor((NOW - hoursAgo * HOUR) / plan.stepMs);
    const since = plan.firstSlot * plan.stepMs;
    const hourOf = (hoursAgo: number) => Math.floor((NOW - hoursAgo * HOUR) / HOUR) * HOUR;
    // As the repository reads them: every candle from the first point on, and the last one before it.
    const candles = r.candles
      .map((c) => ({ optionId: c.optionId, bucket: hourOf(c.hoursAgo), close: c.close }))
      .filter((c, i, all) => all.findIndex((d) => d.optionId === c.optionId && d.bucket === c.bucket) === i);
    const before = (optionId: number) =>
      candles
        .filter((c) => c.optionId === optionId && c.bucket < since)
        .sort((a, b) => b.bucket - a.bucket)[0];
    return {
      plan,
      balancesNow: { cashCents: 100_000, reservedCents: 2_000 },
      holdingsNow: r.holdings.map((h) => ({
        optionId: h.optionId,
        side: h.side,
        quantity: h.quantity,
        resolution: h.resolvedHoursAgo === null ? null : h.resolution,
        yesPayoutCents: h.yesPayoutCents,
        resolvedAt:
          h.resolvedHoursAgo === null || h.resolution === null ? null : NOW - h.resolvedHoursAgo * HOUR + 17,
      })),
      balanceChanges: r.balanceChanges
        .map((c) => ({ slot: slotOf(c.hoursAgo), kind: c.kind, amount: c.amount }))
        .filter((c) => c.slot >= plan.firstSlot),
      holdingChanges: r.holdingChanges
        .map((c) => ({ slot: slotOf(c.hoursAgo), optionId: c.optionId, side: c.side, quantity: c.quantity }))
        .filter((c) => c.slot >= plan.firstSlot),
      marks: [...candles.filter((c) => c.bucket >= since), ...OPTIONS.flatMap((id) => before(id) ?? [])].sort(
        (a, b) => a.bucket - b.bucket,
      ),
      markWidthMs: HOUR,
      conversionMarks: r.conversions
        .map((c) => ({ optionId: c.optionId, at: NOW - c.minutesAgo * 60_000, yesCents: c.yes }))
        .sort((a, b) => a.at - b.at),
    };
  });

describe('the value over time', () => {
  it('equals every holding valued at every point from what was known then', () => {
    fc.assert(
      fc.property(inputs, (input) => {
        expect(historyPoints(input)).toEqual(reference(input));
      }),
      { numRuns: 300 },
    );
  });
});

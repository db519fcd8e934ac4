import { describe, expect, it } from 'vitest';
import { conversionPositionChanges, planConversion } from '../../src/exchange/conversions.js';
import { applyPositionChange, EMPTY_POSITION, type PositionState } from '../../src/exchange/positions.js';
import { markOf, valueHolding } from '../../src/exchange/valuation.js';

const OPTIONS = [1, 2, 3];
const PRICES = new Map([
  [1, 50],
  [2, 30],
  [3, 20],
]);
const POOL = { yesSets: 0, noSets: 0 };

/** A holder's positions after a conversion, from the ones given (others empty). */
function convert(
  request: { kind: 'convert' | 'split' | 'merge'; optionIds?: number[]; quantity: number },
  holdings: Record<string, PositionState>,
) {
  const plan = planConversion(7, OPTIONS, { userId: 1, optionIds: [], ...request }, POOL, PRICES);
  const held = (optionId: number, side: string) => holdings[`${optionId}:${side}`] ?? EMPTY_POSITION;
  const after: Record<string, PositionState> = { ...holdings };
  for (const { optionId, side, change } of conversionPositionChanges(plan, held)) {
    after[`${optionId}:${side}`] = applyPositionChange(held(optionId, side), change);
  }
  const sum = (field: 'costCents' | 'realizedPnlCents') =>
    Object.values(after).reduce((total, position) => total + position[field], 0);
  return { plan, after, cost: sum('costCents'), realized: sum('realizedPnlCents') };
}

const holding = (quantity: number, costCents: number): PositionState => ({
  ...EMPTY_POSITION,
  quantity,
  costCents,
});

describe('conversions move cost basis', () => {
  it('a convert that pays nothing realizes nothing: the NO basis becomes the YES basis, by the legs’ prices', () => {
    const { after, cost, realized } = convert(
      { kind: 'convert', optionIds: [1], quantity: 10 },
      { '1:NO': holding(40, 2_230) },
    );
    expect(realized).toBe(0);
    expect(cost).toBe(2_230);
    expect(after['1:NO']).toEqual(holding(30, 1_673));
    // 557 cents moved, shared 30 : 20.
    expect(after['2:YES']).toEqual(holding(10, 334));
    expect(after['3:YES']).toEqual(holding(10, 223));
  });

  it('a convert that pays cash takes it from the basis; beyond the basis it is a gain', () => {
    const within = convert(
      { kind: 'convert', optionIds: [2, 3], quantity: 10 },
      { '2:NO': holding(10, 720), '3:NO': holding(10, 810) },
    );
    expect(within.realized).toBe(0);
    expect(within.after['1:YES']).toEqual(holding(10, 1_530 - 1_000));
    const beyond = convert(
      { kind: 'convert', optionIds: [2, 3], quantity: 10 },
      { '2:NO': holding(10, 400), '3:NO': holding(10, 500) },
    );
    expect(beyond.realized).toBe(100);
    expect(beyond.after['1:YES']).toEqual(holding(10, 0));
  });

  it('a split costs its cash, shared by price; a merge is a sale of sets for 100 and realizes', () => {
    const split = convert({ kind: 'split', quantity: 10 }, {});
    expect(split.realized).toBe(0);
    expect([1, 2, 3].map((id) => split.after[`${id}:YES`]?.costCents)).toEqual([500, 300, 200]);
    const merge = convert(
      { kind: 'merge', quantity: 10 },
      { '1:YES': holding(10, 400), '2:YES': holding(10, 300), '3:YES': holding(10, 250) },
    );
    expect(merge.plan.cashCents).toBe(1_000);
    expect(merge.realized).toBe(1_000 - 950);
    expect(merge.cost).toBe(0);
  });
});

describe('the mark of a holding', () => {
  const unresolved = { resolution: null, yesPayoutCents: null };
  it('is the payout once resolved, else the last trade, else the last conversion, else none', () => {
    expect(
      markOf('NO', {
        resolution: 'VOID',
        yesPayoutCents: 33,
        lastTradeYesCents: 60,
        lastConversionYesCents: 55,
      }),
    ).toBe(67);
    expect(
      markOf('YES', {
        resolution: 'YES',
        yesPayoutCents: null,
        lastTradeYesCents: 60,
        lastConversionYesCents: null,
      }),
    ).toBe(100);
    expect(markOf('NO', { ...unresolved, lastTradeYesCents: 60, lastConversionYesCents: 55 })).toBe(40);
    expect(markOf('YES', { ...unresolved, lastTradeYesCents: null, lastConversionYesCents: 55 })).toBe(55);
    expect(
      markOf('YES', { ...unresolved, lastTradeYesCents: null, lastConversionYesCents: null }),
    ).toBeNull();
  });

  it('values a holding at its mark, and one without a mark at nothing', () => {
    expect(valueHolding({ quantity: 10, costCents: 480 }, 55)).toEqual({
      avgPriceCents: 48,
      markPriceCents: 55,
      valueCents: 550,
      unrealizedPnlCents: 70,
    });
    expect(valueHolding({ quantity: 10, costCents: 480 }, null).valueCents).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { conversionsOffered, freeShares, listInWords, previewConversion } from './conversions';

const options = [
  { id: '1', label: 'India' },
  { id: '2', label: 'Australia' },
  { id: '3', label: 'Any other team' },
];

describe('conversions of an exclusive event', () => {
  it('turns No on k options into Yes on the others and (k − 1) × 100 cents a unit', () => {
    const one = previewConversion('convert', 10, options, ['1']);
    expect(one.cashCents).toBe(0);
    expect(one.legs.map((leg) => [leg.optionLabel, leg.side, leg.quantity])).toEqual([
      ['India', 'NO', -10],
      ['Australia', 'YES', 10],
      ['Any other team', 'YES', 10],
    ]);
    const two = previewConversion('convert', 10, options, ['2', '3']);
    expect(two.cashCents).toBe(1000);
    expect(two.legs.filter((leg) => leg.quantity > 0).map((leg) => leg.optionLabel)).toEqual(['India']);
  });

  it('splits cash into a Yes of every option, and merges a whole set back', () => {
    expect(previewConversion('split', 5, options).cashCents).toBe(-500);
    expect(
      previewConversion('split', 5, options).legs.every((leg) => leg.side === 'YES' && leg.quantity === 5),
    ).toBe(true);
    const merge = previewConversion('merge', 3, options);
    expect(merge.cashCents).toBe(300);
    expect(merge.legs.every((leg) => leg.side === 'YES' && leg.quantity === -3)).toBe(true);
  });

  it('offers only what the holder can use: free No shares, and whole sets of free Yes', () => {
    const holdings = [
      { optionId: '1', side: 'NO' as const, quantity: 10, reservedQuantity: 4 },
      { optionId: '2', side: 'NO' as const, quantity: 3, reservedQuantity: 3 },
      { optionId: '1', side: 'YES' as const, quantity: 7, reservedQuantity: 0 },
      { optionId: '2', side: 'YES' as const, quantity: 5, reservedQuantity: 1 },
    ];
    expect(freeShares(holdings, '1', 'NO')).toBe(6);
    expect(conversionsOffered(options, holdings)).toEqual({
      convertible: [{ optionId: '1', label: 'India', free: 6 }],
      mergeable: 0,
    });
    const wholeSets = [
      ...holdings,
      { optionId: '3', side: 'YES' as const, quantity: 9, reservedQuantity: 0 },
    ];
    expect(conversionsOffered(options, wholeSets).mergeable).toBe(4);
  });

  it('lists in words', () => {
    expect(listInWords(['A'])).toBe('A');
    expect(listInWords(['A', 'B'])).toBe('A and B');
    expect(listInWords(['A', 'B', 'C'])).toBe('A, B and C');
  });
});

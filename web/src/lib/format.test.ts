import { describe, expect, it } from 'vitest';
import {
  chanceTenths,
  formatChances,
  formatCredits,
  formatPercentBps,
  formatPrice,
  formatSignedCredits,
  pnlClass,
} from './format';

describe('money and price display', () => {
  it('shows prices in cents and balances in credits of 100 cents', () => {
    expect(formatPrice(55)).toBe('55¢');
    expect(formatPrice(null)).toBe('—');
    expect(formatCredits(100000)).toBe('1,000.00 credits');
    expect(formatCredits(5)).toBe('0.05 credits');
    expect(formatCredits(0)).toBe('0.00 credits');
  });

  it('signs profit and loss and colours them', () => {
    expect(formatSignedCredits(1250)).toBe('+12.50 credits');
    expect(formatSignedCredits(-1)).toBe('−0.01 credits');
    expect(formatSignedCredits(0)).toBe('0.00 credits');
    expect([pnlClass(1), pnlClass(-1), pnlClass(0)]).toEqual(['gain', 'loss', '']);
  });

  it('shows basis points as a percentage', () => {
    expect(formatPercentBps(4800)).toBe('48%');
    expect(formatPercentBps(4850)).toBe('48.5%');
  });

  it('shows an exclusive event’s chances to a tenth, adding up to exactly 100.0 %', () => {
    // Each rounded alone: 33.3 + 33.3 + 33.3 = 99.9.
    expect(formatChances([3334, 3333, 3333])).toEqual(['33.4%', '33.3%', '33.3%']);
    // 16.95 + 16.95 + 66.10: alone 17.0 + 17.0 + 66.1 = 100.1.
    expect(chanceTenths([1695, 1695, 6610])).toEqual([170, 169, 661]);
    expect(chanceTenths([1834, 1702, 1499, 1201, 3764]).reduce((sum, t) => sum + t, 0)).toBe(1000);
  });
});

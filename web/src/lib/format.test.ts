import { describe, expect, it } from 'vitest';
import { formatCredits, formatPercentBps, formatPrice, formatSignedCredits, pnlClass } from './format';

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
});

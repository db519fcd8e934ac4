import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { describeConversionError, describeError } from './errors';

describe('API errors in plain words', () => {
  it('explains the trading failures a trader can act on', () => {
    expect(describeError(new ApiError(402, 'INSUFFICIENT_FUNDS', 'Not enough cash for this order'))).toBe(
      'You do not have enough credits for this. Lower the quantity or the price.',
    );
    expect(describeError(new ApiError(409, 'NO_LIQUIDITY', 'x'))).toContain('Try a better price');
  });

  it('names the fields of a validation failure', () => {
    const error = new ApiError(400, 'VALIDATION_FAILED', 'Invalid request', [
      { field: 'body.limitPriceCents', message: 'must be <= 99' },
    ]);
    expect(describeError(error)).toBe('The limit price must be at most 99¢.');
  });

  it('speaks cents, not basis points, for protections', () => {
    const error = new ApiError(400, 'VALIDATION_FAILED', 'Invalid request', [
      { field: 'body.stopLossProbBps', message: 'must be >= 100' },
      { field: 'body.takeProfitProbBps', message: 'must be above the current Yes price of 60¢' },
    ]);
    expect(describeError(error)).toBe(
      'The stop-loss must be at least 1¢. The take-profit must be above the current Yes price of 60¢.',
    );
  });

  it('says when to retry after a rate limit', () => {
    expect(describeError(new ApiError(429, 'RATE_LIMITED', 'x', undefined, 12))).toBe(
      'Too many requests. Try again in 12 seconds.',
    );
  });

  it('says a feature is missing rather than showing a routing error', () => {
    expect(describeError(new ApiError(404, 'NOT_FOUND', 'No route GET /api/me/webhooks'))).toBe(
      'This feature is not available on this server yet.',
    );
    expect(describeError(new ApiError(404, 'NOT_FOUND', 'Market not found'))).toBe('Market not found');
  });

  it('falls back to the service message, and to a generic one for anything else', () => {
    expect(describeError(new ApiError(409, 'SOMETHING_NEW', 'A new rule said no'))).toBe(
      'A new rule said no',
    );
    expect(describeError(new TypeError('boom'))).toBe('Something went wrong. Please try again.');
  });

  it('says what an order needed and what was available', () => {
    const error = new ApiError(402, 'INSUFFICIENT_FUNDS', 'Not enough cash for this order', {
      neededCents: 5000,
      availableCents: 3000,
    });
    expect(describeError(error)).toBe(
      'This order needs 50.00 credits, and you have 30.00 credits available. Lower the quantity or the price.',
    );
  });

  it('speaks credits for amounts the forms take in credits, like the house liquidity', () => {
    const error = new ApiError(400, 'VALIDATION_FAILED', 'Invalid request', [
      { field: 'body.options.0.liquidityCents', message: 'must be <= 100000000' },
    ]);
    expect(describeError(error)).toBe('The house liquidity must be at most 1,000,000.00 credits.');
  });

  it('says why a conversion was refused, in the words of shares given rather than sold', () => {
    expect(
      describeConversionError(new ApiError(409, 'INSUFFICIENT_SHARES', 'x', { needed: 10, available: 4 })),
    ).toBe(
      'This gives 10 shares of an option where you have 4 free: shares offered in your open sell orders do not convert. Lower the number, or cancel those orders first.',
    );
    expect(
      describeConversionError(
        new ApiError(402, 'INSUFFICIENT_FUNDS', 'x', { neededCents: 1000, availableCents: 250 }),
      ),
    ).toBe('This split costs 10.00 credits, and you have 2.50 credits available. Lower the number.');
    expect(describeConversionError(new ApiError(409, 'MARKET_CLOSED', 'x'))).toBe(
      'This market has been resolved: its shares no longer convert.',
    );
    expect(describeConversionError(new ApiError(429, 'RATE_LIMITED', 'x', undefined, 3))).toBe(
      'Too many requests. Try again in 3 seconds.',
    );
  });
});

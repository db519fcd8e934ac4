/**
 * Money is integer cents; prices are integer cents 1..99 per share; a YES price p is a NO price 100 - p.
 * These helpers keep the arithmetic in integers and make the unit visible in names.
 */

export type Side = 'YES' | 'NO';
export type Action = 'BUY' | 'SELL';

export const PAYOUT_CENTS = 100;
export const MIN_PRICE = 1;
export const MAX_PRICE = 99;

export function assertCents(value: number, what: string): void {
  if (!Number.isSafeInteger(value))
    throw new RangeError(`${what} must be an integer number of cents, got ${value}`);
}

export function isValidPrice(price: number): boolean {
  return Number.isInteger(price) && price >= MIN_PRICE && price <= MAX_PRICE;
}

export function oppositeSide(side: Side): Side {
  return side === 'YES' ? 'NO' : 'YES';
}

/** The price of `side` when YES trades at `yesPrice`. */
export function sidePrice(side: Side, yesPrice: number): number {
  return side === 'YES' ? yesPrice : PAYOUT_CENTS - yesPrice;
}

/** Basis points of probability for a price in cents (1 cent = 100 bps). */
export function priceToBps(priceCents: number): number {
  return priceCents * 100;
}

/** Fee in cents on a notional, rounded up so the house never rounds against itself. */
export function feeCents(notionalCents: number, feeBps: number): number {
  if (feeBps === 0 || notionalCents === 0) return 0;
  return Math.ceil((notionalCents * feeBps) / 10_000);
}

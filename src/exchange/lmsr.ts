import { MAX_PRICE, MIN_PRICE, PAYOUT_CENTS } from './money.js';

/**
 * The house market maker: a logarithmic market scoring rule (LMSR) maker discretised to the 1-cent ladder.
 *
 * With liquidity b (cents) and net YES exposure d (YES shares the maker has sold minus NO shares it has sold),
 * the continuous LMSR price of YES is P(d) = 100·σ(100·d / b), and the exposure at which the price reaches tick t
 * is Q(t) = (b / 100)·ln(t / (100 − t)). At each tick the maker offers exactly the shares that move its price to
 * that tick. Every share is sold at a tick at or above its marginal LMSR price and bought at or below it, so the
 * maker never does worse than continuous LMSR and its worst-case loss stays within b·ln 2.
 *
 * The maker holds an inventory of YES or NO shares; its exposure is d = offset + noShares − yesShares, where the
 * offset sets a starting price other than 50.
 *
 * The same ladder serves one option of an exclusive event's shared maker (event-maker.ts): there the other options'
 * exposures move this option's price curve along the exposure axis by `shift` shares, P(d) = 100·σ(100·(d − shift) / b),
 * so the quotes of every option follow a fill in any of them.
 */
export interface AmmState {
  /** Liquidity parameter b in cents; 0 means no house liquidity. */
  liquidityCents: number;
  offset: number;
  yesShares: number;
  noShares: number;
  /** Where the other options of an exclusive event put this option's price curve (in shares; absent = 0). */
  shift?: number;
}

export function exposure(amm: AmmState): number {
  return amm.offset + amm.noShares - amm.yesShares;
}

/** Q(t) for every tick of one liquidity, computed once: the maker is asked for its quotes at every tick of every match. */
const boundaries = new Map<number, Float64Array>();
const MAX_TABLES = 1_000;

function boundary(liquidityCents: number, tick: number): number {
  if (tick < MIN_PRICE || tick > MAX_PRICE)
    return (liquidityCents / PAYOUT_CENTS) * Math.log(tick / (PAYOUT_CENTS - tick));
  let table = boundaries.get(liquidityCents);
  if (!table) {
    if (boundaries.size >= MAX_TABLES) boundaries.clear();
    table = new Float64Array(PAYOUT_CENTS);
    for (let t = MIN_PRICE; t <= MAX_PRICE; t++)
      table[t] = (liquidityCents / PAYOUT_CENTS) * Math.log(t / (PAYOUT_CENTS - t));
    boundaries.set(liquidityCents, table);
  }
  return table[tick] as number;
}

/** Upper exposure boundary of the ask at tick t (rounded down: never sell below the marginal price). */
function askBoundary(amm: AmmState, tick: number): number {
  return Math.floor(boundary(amm.liquidityCents, tick) + (amm.shift ?? 0) + 1e-9);
}

/** Lower exposure boundary of the bid at tick t (rounded up: never buy above the marginal price). */
function bidBoundary(amm: AmmState, tick: number): number {
  return Math.ceil(boundary(amm.liquidityCents, tick) + (amm.shift ?? 0) - 1e-9);
}

/** YES shares the maker sells at YES price `tick` from its current exposure. */
export function ammAskQuantity(amm: AmmState, tick: number): number {
  if (amm.liquidityCents <= 0 || tick <= MIN_PRICE - 1 || tick > MAX_PRICE) return 0;
  const d = exposure(amm);
  const upper = askBoundary(amm, tick);
  const lower = tick === MIN_PRICE ? Number.NEGATIVE_INFINITY : askBoundary(amm, tick - 1);
  return Math.max(0, upper - Math.max(lower, d));
}

/** YES shares the maker buys at YES price `tick` from its current exposure. */
export function ammBidQuantity(amm: AmmState, tick: number): number {
  if (amm.liquidityCents <= 0 || tick < MIN_PRICE || tick > MAX_PRICE) return 0;
  const d = exposure(amm);
  const lower = bidBoundary(amm, tick);
  const upper = tick === MAX_PRICE ? Number.POSITIVE_INFINITY : bidBoundary(amm, tick + 1);
  return Math.max(0, Math.min(upper, d) - lower);
}

/** The maker's quotes: asks ascending and bids descending by YES price, each with its quantity. */
export function ammLevels(amm: AmmState): { bids: [number, number][]; asks: [number, number][] } {
  const bids: [number, number][] = [];
  const asks: [number, number][] = [];
  if (amm.liquidityCents <= 0) return { bids, asks };
  for (let tick = MIN_PRICE; tick <= MAX_PRICE; tick++) {
    const ask = ammAskQuantity(amm, tick);
    if (ask > 0) asks.push([tick, ask]);
  }
  for (let tick = MAX_PRICE; tick >= MIN_PRICE; tick--) {
    const bid = ammBidQuantity(amm, tick);
    if (bid > 0) bids.push([tick, bid]);
  }
  return { bids, asks };
}

/** The exposure at which the continuous price equals a starting probability (in whole cents). */
export function offsetForPrice(liquidityCents: number, yesPrice: number): number {
  if (liquidityCents <= 0 || yesPrice === 50) return 0;
  return Math.round(boundary(liquidityCents, yesPrice));
}

/** The continuous LMSR price of YES in cents (fractional) at the maker's exposure. */
export function ammPrice(amm: AmmState): number {
  if (amm.liquidityCents <= 0) return 50;
  const d = exposure(amm) - (amm.shift ?? 0);
  return PAYOUT_CENTS / (1 + Math.exp((-PAYOUT_CENTS * d) / amm.liquidityCents));
}

/**
 * The worst-case loss of a maker with this liquidity, in cents, when it opens at even odds: b·ln 2. One that opens
 * at a YES price p loses at most b·ln(1 / min(p, 1 − p)) (`openingLossBoundCents`).
 */
export function maxLossCents(liquidityCents: number): number {
  return liquidityCents * Math.LN2;
}

/**
 * The most an LMSR maker can lose, in cents, given the chances it opened at (fractions summing to 1): every share it
 * trades is priced at least as well as the continuous rule, whose loss is bounded by b·ln(1 / the smallest opening
 * chance): b·ln n for n outcomes at even odds.
 */
export function openingLossBoundCents(liquidityCents: number, openingChances: number[]): number {
  return liquidityCents * Math.log(1 / Math.min(...openingChances));
}

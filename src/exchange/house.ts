import { type AmmState, ammPrice, exposure } from './lmsr.js';
import { PAYOUT_CENTS } from './money.js';

/** The maker's inventory in one option: what it holds of each side, and where its price curve started. */
export interface MakerInventory {
  offset: number;
  yesShares: number;
  noShares: number;
}

/**
 * The house market maker of a market: of one independent option (a two-outcome LMSR, lmsr.ts), or of an exclusive
 * event, where one LMSR spans its n options: C(q) = b·ln Σ exp(100·q_i / b), q_i the maker's exposure in option i
 * (offset + NO − YES shares it holds there). Seen from option i alone, with the others held still, that rule is the
 * two-outcome one moved along the exposure axis by (b / 100)·ln Σ_{j≠i} exp(100·q_j / b): so every option keeps its
 * 1-cent ladder and its discretised quotes, and after a fill in any option the others' quotes move with it. The
 * chances add up to 100 %, and as every share trades at a tick at least as good for the house as the continuous rule,
 * the house loses at most b·ln(1 / the smallest opening chance): b·ln n from even odds.
 */
export class House {
  private constructor(
    readonly liquidityCents: number,
    private readonly makers: Map<number, AmmState>,
    readonly exclusive: boolean,
  ) {
    if (exclusive) this.moved();
  }

  /** The maker of one independent option; null when it has no house liquidity. */
  static ofOption(optionId: number, amm: AmmState | null): House | null {
    if (!amm || amm.liquidityCents <= 0) return null;
    return new House(amm.liquidityCents, new Map([[optionId, { ...amm, shift: 0 }]]), false);
  }

  /** The one maker of an exclusive event's options; null when the event has no house liquidity. */
  static ofEvent(liquidityCents: number, inventories: Map<number, MakerInventory>): House | null {
    if (liquidityCents <= 0 || inventories.size < 2) return null;
    const makers = new Map<number, AmmState>();
    for (const [optionId, inventory] of inventories)
      makers.set(optionId, { liquidityCents, ...inventory, shift: 0 });
    return new House(liquidityCents, makers, true);
  }

  /** The maker's ladder in one option: the very state matching advances (null when it does not quote there). */
  quote(optionId: number): AmmState | null {
    return this.makers.get(optionId) ?? null;
  }

  optionIds(): number[] {
    return [...this.makers.keys()];
  }

  /** After fills moved the maker's inventory in an option: the other options of an exclusive event follow. */
  moved(): void {
    if (!this.exclusive) return;
    const ids = [...this.makers.keys()];
    const scaled = ids.map(
      (id) => (PAYOUT_CENTS * exposure(this.makers.get(id) as AmmState)) / this.liquidityCents,
    );
    const others = logSumExpWithoutEach(scaled);
    ids.forEach((id, index) => {
      (this.makers.get(id) as AmmState).shift =
        ((others[index] as number) * this.liquidityCents) / PAYOUT_CENTS;
    });
  }

  /** A copy that later fills do not change. */
  clone(): House {
    const makers = new Map([...this.makers].map(([id, amm]) => [id, { ...amm }]));
    return new House(this.liquidityCents, makers, this.exclusive);
  }

  /**
   * The offset at which an option opens at a YES price, the other options held still (so they share the rest of
   * the chances in the proportions they had): where its price curve crosses that price.
   */
  offsetAt(optionId: number, priceCents: number): number {
    const amm = this.makers.get(optionId);
    if (!amm) return 0;
    const logit = Math.log(priceCents / (PAYOUT_CENTS - priceCents));
    return Math.round((this.liquidityCents / PAYOUT_CENTS) * logit + (amm.shift ?? 0));
  }

  /** The maker's continuous chance of each option, as fractions (those of an exclusive event add up to 1). */
  chances(): Map<number, number> {
    return new Map([...this.makers].map(([id, amm]) => [id, ammPrice(amm) / PAYOUT_CENTS]));
  }
}

/** For each i, ln Σ_{j≠i} exp(x_j), computed from prefix and suffix sums so that no exponential overflows. */
function logSumExpWithoutEach(xs: number[]): number[] {
  const prefix: number[] = [Number.NEGATIVE_INFINITY];
  for (const x of xs) prefix.push(logAdd(prefix[prefix.length - 1] as number, x));
  const suffix: number[] = [Number.NEGATIVE_INFINITY];
  for (const x of [...xs].reverse()) suffix.push(logAdd(suffix[suffix.length - 1] as number, x));
  return xs.map((_, i) => logAdd(prefix[i] as number, suffix[xs.length - 1 - i] as number));
}

function logAdd(a: number, b: number): number {
  if (a === Number.NEGATIVE_INFINITY) return b;
  if (b === Number.NEGATIVE_INFINITY) return a;
  const max = Math.max(a, b);
  return max + Math.log(Math.exp(a - max) + Math.exp(b - max));
}

/**
 * The exposures at which an exclusive event's maker opens at these chances (fractions summing to 1), in whole
 * shares: q_i = (b / 100)·ln p_i, up to a common constant that changes no price.
 */
export function offsetsForChances(liquidityCents: number, chances: number[]): number[] {
  if (liquidityCents <= 0) return chances.map(() => 0);
  const top = Math.max(...chances);
  return chances.map((p) => Math.round((liquidityCents / PAYOUT_CENTS) * Math.log(p / top)));
}

/** The chances an exclusive event's maker opened at, from its offsets (fractions summing to 1). */
export function chancesOfOffsets(liquidityCents: number, offsets: number[]): number[] {
  if (liquidityCents <= 0 || offsets.length === 0) return offsets.map(() => 1 / offsets.length);
  const scaled = offsets.map((q) => (PAYOUT_CENTS * q) / liquidityCents);
  const top = Math.max(...scaled);
  const weights = scaled.map((x) => Math.exp(x - top));
  const total = weights.reduce((sum, w) => sum + w, 0);
  return weights.map((w) => w / total);
}

/**
 * Whole numbers that add up to exactly `total` and stay as close as they can to `shares` × total (the largest
 * remainder method): chances shown in basis points that add up to 10,000, prices in cents that add up to 100.
 */
export function apportion(shares: number[], total: number): number[] {
  const sum = shares.reduce((acc, share) => acc + share, 0);
  const exact = shares.map((share) => (sum > 0 ? (share / sum) * total : total / shares.length));
  const whole = exact.map(Math.floor);
  let left = total - whole.reduce((acc, value) => acc + value, 0);
  const order = exact.map((value, index) => ({ index, rest: value - Math.floor(value) }));
  order.sort((a, b) => b.rest - a.rest || a.index - b.index);
  for (const { index } of order) {
    if (left <= 0) break;
    whole[index] = (whole[index] as number) + 1;
    left -= 1;
  }
  return whole;
}

/** The house maker's holding in one option of a market, and the cash it received there (negative: paid). */
export interface MakerBook {
  cashCents: number;
  yesShares: number;
  noShares: number;
}

/**
 * The house maker's result in a market under each outcome that can occur (cents): its cash plus what its inventory
 * pays. An independent option has two outcomes (YES, NO); an exclusive event one per option winning.
 */
export function makerResults(options: MakerBook[], exclusive: boolean): number[] {
  const cash = options.reduce((sum, o) => sum + o.cashCents, 0);
  if (!exclusive) {
    const [option] = options;
    if (!option) return [];
    return [cash + PAYOUT_CENTS * option.yesShares, cash + PAYOUT_CENTS * option.noShares];
  }
  const noTotal = options.reduce((sum, o) => sum + o.noShares, 0);
  return options.map((winner) => cash + PAYOUT_CENTS * (winner.yesShares + noTotal - winner.noShares));
}

import type { JournalEntry } from './ledger.js';
import { type Action, feeCents, PAYOUT_CENTS } from './money.js';

/**
 * Collateral, kept by user apart from the books kept by market. Before any market decides a request, the cash its
 * orders could spend at worst is set aside out of its user's cash, in order, each order as if it came alone: a
 * BUY's limit price times its quantity and the largest fee that could take, a split's 100 a unit, an amend's
 * increase over what its order holds already. An order the cash left cannot cover is refused there (402), before
 * any market sees it, so a later order of a request may be refused because an earlier one took the cash. What is
 * set aside moves to the user's `transit` account and is spent there by the markets, which give back what they do
 * not spend (and what they pay out) through the same account; the next collateral step takes it back into cash.
 * No I/O: the arithmetic of one step, over the cash its users hold and what came back to them.
 */

/** What one part of a request may cost at worst, in cents (0: nothing, a sale or a cancel). */
export interface CollateralNeed {
  cents: number;
  /**
   * What the market will free for it first: an amended order's collateral. Not set aside (the market counts it),
   * only counted into a refusal's figures, so that they say what the whole order needs and what it has.
   */
  freedCents?: number;
}

/** One request of one user: its needs in the order its orders were given. */
export interface CollateralClaim {
  userId: number;
  needs: CollateralNeed[];
}

/** A need's outcome: its cents set aside, or refused with what it needed and what cash was left. */
export type NeedVerdict = { held: number } | { refused: { neededCents: number; availableCents: number } };

export interface CollateralStep {
  /** Per claim, per need, in the order given. */
  verdicts: NeedVerdict[][];
  /** Each user's cash after the step. */
  cashAfter: Map<number, number>;
  /** One entry per user whose cash moved: what came back into cash, less what was set aside. */
  entries: JournalEntry[];
}

/**
 * Sets the claims' needs aside in order out of each user's cash, with what markets gave back to them (`returned`)
 * counted in first. Nothing is created or lost: each user's cash before, plus what came back, equals their cash
 * after plus what was set aside, and cash never goes below zero.
 */
export function holdCollateral(
  cash: Map<number, number>,
  returned: Map<number, number>,
  claims: CollateralClaim[],
): CollateralStep {
  const left = new Map(cash);
  for (const [userId, cents] of returned) left.set(userId, (left.get(userId) ?? 0) + cents);
  const heldBy = new Map<number, number>();
  const verdicts = claims.map(({ userId, needs }) =>
    needs.map((need): NeedVerdict => {
      const availableCents = left.get(userId) ?? 0;
      const freed = need.freedCents ?? 0;
      if (need.cents > availableCents)
        return { refused: { neededCents: need.cents + freed, availableCents: availableCents + freed } };
      left.set(userId, availableCents - need.cents);
      heldBy.set(userId, (heldBy.get(userId) ?? 0) + need.cents);
      return { held: need.cents };
    }),
  );
  const users = new Set([...returned.keys(), ...heldBy.keys()]);
  const entries = [...users].flatMap((userId) => {
    const net = (returned.get(userId) ?? 0) - (heldBy.get(userId) ?? 0);
    if (net === 0) return [];
    return [collateralEntry(userId, net, returned.get(userId) ?? 0, heldBy.get(userId) ?? 0)];
  });
  return { verdicts, cashAfter: left, entries };
}

function collateralEntry(userId: number, net: number, returned: number, held: number): JournalEntry {
  return {
    kind: 'collateral',
    memo: `collateral: ${held} set aside, ${returned} given back by the markets`,
    userId,
    postings: [
      { account: { kind: 'cash', userId }, amount: net },
      { account: { kind: 'transit', userId }, amount: -net },
    ],
  };
}

/** What an order may spend at worst: a BUY its limit price times its quantity and the fee on that; a SELL nothing. */
export function orderWorstCase(
  order: { action: Action; priceCents: number; quantity: number },
  feeBps: number,
): number {
  if (order.action !== 'BUY') return 0;
  const notional = order.priceCents * order.quantity;
  return notional + feeCents(notional, feeBps);
}

/** What a split of `quantity` units costs: 100 a unit (one YES of every option). */
export function splitCost(quantity: number): number {
  return PAYOUT_CENTS * quantity;
}

/**
 * What an amend of a resting BUY may need on top of what the order holds now: the replacement's worst case less
 * the order's collateral, which the decision counts as freed (never below zero).
 */
export function amendWorstCase(
  replacement: { action: Action; priceCents: number; quantity: number },
  heldCents: number,
  feeBps: number,
): CollateralNeed {
  const worst = orderWorstCase(replacement, feeBps);
  const freedCents = Math.min(worst, heldCents);
  return { cents: worst - freedCents, freedCents };
}

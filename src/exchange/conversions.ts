import { apportion } from './house.js';
import type { Posting } from './ledger.js';
import { PAYOUT_CENTS, type Side } from './money.js';
import { costOfShares, NO_CHANGE, type PositionChange, type PositionState } from './positions.js';

/**
 * Conversions between the shares of an exclusive event's options, where exactly one option wins. Then NO on option
 * i pays what YES on every other option pays together, so:
 * - convert: NO on k options → YES on each of the other n − k, plus (k − 1) × 100 cents a unit;
 * - split: 100 cents → YES on every option (a convert of no NO at all);
 * - merge: YES on every option → 100 cents.
 *
 * The house takes the other side through the event's conversion pool. It gives YES by minting a pair of that option
 * (its NO to the pool, 100 cents to the option's escrow), and keeps the NO it is given, so it always holds complete
 * sets: as many NO of every option (each set pays (n − 1) × 100 at settlement, what it paid for it) or as many YES
 * of every option (each pays 100). A YES set and a NO set in the pool are merged back at once, option by option. The
 * pool's account therefore stands at minus what its sets cost, and ends at zero when the event settles with one
 * winner: the ledger's escrow rule (100 cents a pair outstanding) and the pool's are what `npm run audit` proves.
 */

export type ConversionKind = 'convert' | 'split' | 'merge';

export interface PoolState {
  yesSets: number;
  noSets: number;
}

export interface ConversionRequest {
  kind: ConversionKind;
  userId: number;
  /** convert: the options whose NO the user gives (k of them); ignored by split and merge. */
  optionIds: number[];
  quantity: number;
}

export interface ConversionLeg {
  optionId: number;
  side: Side;
  /** Shares the user received (positive) or gave (negative). */
  quantity: number;
  /** The price per share of the leg's side at the house's chance of the option (adding up to 100 a set). */
  priceCents: number;
}

export interface ConversionPlan {
  legs: ConversionLeg[];
  /** Cash the user receives (negative: pays). */
  cashCents: number;
  postings: Posting[];
  /** Pairs minted and merged per option, for the option totals. */
  pairs: Map<number, { minted: number; merged: number }>;
  poolAfter: PoolState;
}

/**
 * What a conversion does. `optionIds` are all the event's options; `prices` their reference prices in cents adding up
 * to exactly 100 (the legs' prices, and the weights by which cost basis moves: conversionPositionChanges).
 */
export function planConversion(
  eventId: number,
  optionIds: number[],
  request: ConversionRequest,
  pool: PoolState,
  prices: Map<number, number>,
): ConversionPlan {
  const { quantity, userId } = request;
  const given = new Set(request.kind === 'convert' ? request.optionIds : []);
  const legs: ConversionLeg[] = [];
  const pairs = new Map(optionIds.map((id) => [id, { minted: 0, merged: 0 }]));
  const postings: Posting[] = [];
  const poolAccount = { kind: 'conversion', eventId } as const;
  const price = (optionId: number) => prices.get(optionId) ?? 0;
  let cashCents: number;
  let poolAfter: PoolState;

  if (request.kind === 'merge') {
    for (const optionId of optionIds)
      legs.push({ optionId, side: 'YES', quantity: -quantity, priceCents: price(optionId) });
    cashCents = PAYOUT_CENTS * quantity;
    postings.push({ account: poolAccount, amount: -cashCents });
    poolAfter = { yesSets: pool.yesSets + quantity, noSets: pool.noSets };
  } else {
    const k = given.size;
    for (const optionId of optionIds) {
      if (given.has(optionId)) {
        legs.push({ optionId, side: 'NO', quantity: -quantity, priceCents: PAYOUT_CENTS - price(optionId) });
        continue;
      }
      legs.push({ optionId, side: 'YES', quantity, priceCents: price(optionId) });
      // A fresh pair: its YES to the user, its NO to the pool, its 100 cents from the pool to escrow.
      postings.push({ account: { kind: 'escrow', optionId }, amount: PAYOUT_CENTS * quantity });
      (pairs.get(optionId) as { minted: number }).minted += quantity;
    }
    cashCents = (k - 1) * PAYOUT_CENTS * quantity;
    postings.push({
      account: poolAccount,
      amount: -((optionIds.length - k) * PAYOUT_CENTS * quantity + cashCents),
    });
    poolAfter = { yesSets: pool.yesSets, noSets: pool.noSets + quantity };
  }
  postings.push({ account: { kind: 'transit', userId }, amount: cashCents });

  // A YES set and a NO set in the pool are one pair of every option: merged, their escrow back to the pool.
  const merged = Math.min(poolAfter.yesSets, poolAfter.noSets);
  if (merged > 0) {
    for (const optionId of optionIds) {
      postings.push({ account: { kind: 'escrow', optionId }, amount: -PAYOUT_CENTS * merged });
      (pairs.get(optionId) as { merged: number }).merged += merged;
    }
    postings.push({ account: poolAccount, amount: PAYOUT_CENTS * optionIds.length * merged });
    poolAfter = { yesSets: poolAfter.yesSets - merged, noSets: poolAfter.noSets - merged };
  }

  return { legs, cashCents, postings, pairs, poolAfter };
}

/**
 * What a conversion does to the holder's positions. It exchanges shares for shares of equal worth, so it moves cost
 * basis and realizes nothing: the basis the given shares take with them (costOfShares), less the cash received or
 * plus the cash paid, becomes the cost of the shares received, shared by their legs' prices. What cannot move is
 * realized on the given legs (shared by their prices): all of a merge's (it receives only cash: a sale of a complete
 * set for 100), and cash received beyond the basis given (the shares received then cost nothing).
 */
export function conversionPositionChanges(
  plan: Pick<ConversionPlan, 'legs' | 'cashCents'>,
  held: (optionId: number, side: Side) => PositionState,
): { optionId: number; side: Side; change: PositionChange }[] {
  const given = plan.legs.filter((leg) => leg.quantity < 0);
  const received = plan.legs.filter((leg) => leg.quantity > 0);
  const basis = given.map((leg) => costOfShares(held(leg.optionId, leg.side), -leg.quantity));
  const basisGiven = basis.reduce((sum, cents) => sum + cents, 0);
  const realized =
    received.length === 0 ? plan.cashCents - basisGiven : Math.max(0, plan.cashCents - basisGiven);
  const gains = apportion(
    given.map((leg) => -leg.quantity * leg.priceCents),
    realized,
  );
  const costs = apportion(
    received.map((leg) => leg.quantity * leg.priceCents),
    basisGiven - plan.cashCents + realized,
  );
  return [
    ...given.map((leg, index) => ({
      optionId: leg.optionId,
      side: leg.side,
      change: {
        ...NO_CHANGE,
        soldQuantity: -leg.quantity,
        soldProceedsCents: (basis[index] as number) + (gains[index] as number),
      },
    })),
    ...received.map((leg, index) => ({
      optionId: leg.optionId,
      side: leg.side,
      change: { ...NO_CHANGE, boughtQuantity: leg.quantity, boughtCostCents: costs[index] as number },
    })),
  ];
}

/** What the user must have free for a conversion: cash (split), or shares of each leg they give. */
export function conversionNeeds(plan: ConversionPlan): {
  cashCents: number;
  shares: { optionId: number; side: Side; quantity: number }[];
} {
  return {
    cashCents: Math.max(0, -plan.cashCents),
    shares: plan.legs
      .filter((leg) => leg.quantity < 0)
      .map((leg) => ({ optionId: leg.optionId, side: leg.side, quantity: -leg.quantity })),
  };
}

import { type Side, sidePrice } from './money.js';
import { type Outcome, payoutPerShare, yesPayoutOf } from './positions.js';

/**
 * The one rule that values a holding, wherever a value is shown: a position's mark and value, the portfolio's
 * summary and unrealized P&L, and every point of its value over time. A share of an option is marked at
 * - what a share of its side pays, once the option is resolved;
 * - else its side of the option's last traded YES price;
 * - else (an option of an exclusive event that has never traded) its side of the YES price the event's last
 *   conversion booked it at: the house's chance of it then;
 * - else it has no mark and counts 0. No holding lacks one: shares come from a trade or a conversion, and each
 *   leaves a price.
 * Each input is what was known at the time valued (now, or a point of the history), so the history's last point and
 * the summary are one number.
 */
export interface MarkInputs {
  /** How the option resolved, null while it is unresolved. */
  resolution: Outcome | null;
  /** What a YES share pays once resolved (a NO share the rest of 100); null: by its outcome. */
  yesPayoutCents: number | null;
  lastTradeYesCents: number | null;
  lastConversionYesCents: number | null;
}

/** The price a share of `side` is marked at, in cents, or null for an option that never changed hands. */
export function markOf(side: Side, inputs: MarkInputs): number | null {
  if (inputs.resolution !== null) {
    return payoutPerShare(side, inputs.yesPayoutCents ?? yesPayoutOf(inputs.resolution));
  }
  const yes = inputs.lastTradeYesCents ?? inputs.lastConversionYesCents;
  return yes === null ? null : sidePrice(side, yes);
}

/** A holding valued at its mark: what it is worth and what it would gain or lose against its cost. */
export function valueHolding(
  holding: { quantity: number; costCents: number },
  markPriceCents: number | null,
) {
  const valueCents = holding.quantity * (markPriceCents ?? 0);
  return {
    avgPriceCents: holding.quantity > 0 ? Math.round(holding.costCents / holding.quantity) : 0,
    markPriceCents,
    valueCents,
    unrealizedPnlCents: valueCents - holding.costCents,
  };
}

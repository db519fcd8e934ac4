import { PAYOUT_CENTS, type Side } from './money.js';

/** A holding of one side of one option. Cost is the cents paid for the shares held now, fees included. */
export interface PositionState {
  quantity: number;
  reservedQuantity: number;
  costCents: number;
  realizedPnlCents: number;
}

export const EMPTY_POSITION: PositionState = {
  quantity: 0,
  reservedQuantity: 0,
  costCents: 0,
  realizedPnlCents: 0,
};

/** What one order did to one holder's side of an option. */
export interface PositionChange {
  boughtQuantity: number;
  boughtCostCents: number;
  soldQuantity: number;
  soldProceedsCents: number;
  /** Shares sold out of those already reserved by resting SELL orders. */
  soldFromReserved: number;
  /** Shares newly reserved by a SELL order that now rests. */
  newlyReserved: number;
}

export const NO_CHANGE: PositionChange = {
  boughtQuantity: 0,
  boughtCostCents: 0,
  soldQuantity: 0,
  soldProceedsCents: 0,
  soldFromReserved: 0,
  newlyReserved: 0,
};

/**
 * Applies a change with average-cost accounting: a sale removes its proportional share of the cost basis
 * (all of it when the holding is sold out) and books the difference to realized P&L.
 */
export function applyPositionChange(position: PositionState, change: PositionChange): PositionState {
  let { quantity, reservedQuantity, costCents, realizedPnlCents } = position;
  quantity += change.boughtQuantity;
  costCents += change.boughtCostCents;
  if (change.soldQuantity > 0) {
    if (change.soldQuantity > quantity)
      throw new RangeError(`cannot sell ${change.soldQuantity} of ${quantity} shares`);
    const removed = costOfShares({ quantity, costCents }, change.soldQuantity);
    quantity -= change.soldQuantity;
    costCents -= removed;
    realizedPnlCents += change.soldProceedsCents - removed;
  }
  reservedQuantity += change.newlyReserved - change.soldFromReserved;
  if (reservedQuantity < 0 || reservedQuantity > quantity) {
    throw new RangeError(`reserved shares ${reservedQuantity} out of range for a holding of ${quantity}`);
  }
  return { quantity, reservedQuantity, costCents, realizedPnlCents };
}

/** The cost basis that `sold` of a holding's shares take with them: their share of it, all of it for the last. */
export function costOfShares(position: Pick<PositionState, 'quantity' | 'costCents'>, sold: number): number {
  if (sold >= position.quantity) return position.costCents;
  return Math.floor((position.costCents * sold) / position.quantity);
}

export type Outcome = 'YES' | 'NO' | 'VOID';

/**
 * What a YES share of an option pays when it resolves to `outcome` (a NO share pays the rest of 100): all of it or
 * nothing, or for VOID `voidYesCents`: half of it for an independent option (voidPayouts for an exclusive event's).
 */
export function yesPayoutOf(outcome: Outcome, voidYesCents = PAYOUT_CENTS / 2): number {
  if (outcome === 'VOID') return voidYesCents;
  return outcome === 'YES' ? PAYOUT_CENTS : 0;
}

/** Cents paid per share of `side` of an option whose YES share pays `yesPayoutCents`. */
export function payoutPerShare(side: Side, yesPayoutCents: number): number {
  return side === 'YES' ? yesPayoutCents : PAYOUT_CENTS - yesPayoutCents;
}

/** Settles a holding: pays out every share and closes the position, booking the result to realized P&L. */
export function settlePosition(
  position: PositionState,
  side: Side,
  yesPayoutCents: number,
): { position: PositionState; payoutCents: number } {
  const payoutCents = position.quantity * payoutPerShare(side, yesPayoutCents);
  return {
    payoutCents,
    position: {
      quantity: 0,
      reservedQuantity: 0,
      costCents: 0,
      realizedPnlCents: position.realizedPnlCents + payoutCents - position.costCents,
    },
  };
}

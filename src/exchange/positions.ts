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
    const removed =
      change.soldQuantity === quantity ? costCents : Math.floor((costCents * change.soldQuantity) / quantity);
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

export type Outcome = 'YES' | 'NO' | 'VOID';

/** Cents paid per share of `side` when the option resolves to `outcome`. */
export function payoutPerShare(side: Side, outcome: Outcome): number {
  if (outcome === 'VOID') return PAYOUT_CENTS / 2;
  return side === outcome ? PAYOUT_CENTS : 0;
}

/** Settles a holding: pays out every share and closes the position, booking the result to realized P&L. */
export function settlePosition(
  position: PositionState,
  side: Side,
  outcome: Outcome,
): { position: PositionState; payoutCents: number } {
  const payoutCents = position.quantity * payoutPerShare(side, outcome);
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

/** Mark-to-market view of a holding at the side's last traded price. */
export function valuePosition(position: PositionState, markPriceCents: number | null) {
  const valueCents = markPriceCents === null ? position.costCents : position.quantity * markPriceCents;
  return {
    avgPriceCents: position.quantity > 0 ? Math.round(position.costCents / position.quantity) : 0,
    valueCents,
    unrealizedPnlCents: valueCents - position.costCents,
  };
}

import { apportion } from './house.js';
import type { JournalEntry, Posting } from './ledger.js';
import type { Side } from './money.js';
import { PAYOUT_CENTS } from './money.js';
import { EMPTY_POSITION, type Outcome, type PositionState, settlePosition } from './positions.js';

/** A holder of one side of the option being settled, as read under the option's lock. */
export interface Holder {
  userId: number;
  side: Side;
  position: PositionState;
}

/** What a settlement is given: the option, its outcome, its holders, and what the house holds in it. */
export interface SettlementInput {
  optionId: number;
  eventId: number;
  label: string;
  outcome: Outcome;
  /** What a YES share pays (a NO share the rest of 100): from the outcome, and for VOID `voidPayouts`. */
  yesPayoutCents: number;
  holders: Holder[];
  /** The house market maker's inventory in the option. */
  house: { yesShares: number; noShares: number };
  /** The exclusive event's conversion pool's sets in the option (none for an independent option). */
  pool: { yesShares: number; noShares: number };
}

/** One holder's result: what they were paid and what it made them. */
export interface SettlementRecord {
  userId: number;
  optionId: number;
  eventId: number;
  side: Side;
  outcome: Outcome;
  quantity: number;
  payoutCents: number;
  pnlCents: number;
}

export interface OptionSettlement {
  /** Every holder's position, closed. */
  positions: { userId: number; optionId: number; side: Side; state: PositionState }[];
  records: SettlementRecord[];
  /** The one journal entry paying everyone out of the option's escrow. */
  entry: JournalEntry;
  /** What the house maker's inventory and the conversion pool's sets pay. */
  housePayoutCents: number;
  poolPayoutCents: number;
}

/**
 * Settles an option: every share is paid out of the option's escrow (100 a winning share; for VOID a YES share
 * `yesPayoutCents`, a NO share the rest: 50 each for an independent option): its holders' into their transit
 * accounts, the house maker's into its account, the conversion pool's into the pool. Each holder's position is
 * closed and its result recorded. A pair always pays exactly 100, so escrow pays exactly what it holds.
 */
export function settleOption(input: SettlementInput): OptionSettlement {
  const { optionId, eventId, outcome, yesPayoutCents } = input;
  const postings: Posting[] = [];
  const positions: OptionSettlement['positions'] = [];
  const records: SettlementRecord[] = [];
  let escrowOut = 0;
  for (const { userId, side, position: held } of input.holders) {
    const { position, payoutCents } = settlePosition(held, side, yesPayoutCents);
    positions.push({ userId, optionId, side, state: position });
    records.push({
      userId,
      optionId,
      eventId,
      side,
      outcome,
      quantity: held.quantity,
      payoutCents,
      pnlCents: payoutCents - held.costCents,
    });
    if (payoutCents > 0) postings.push({ account: { kind: 'transit', userId }, amount: payoutCents });
    escrowOut += payoutCents;
  }
  const housePayoutCents = inventoryPayout(input.house, yesPayoutCents);
  if (housePayoutCents > 0) postings.push({ account: { kind: 'amm' }, amount: housePayoutCents });
  const poolPayoutCents = inventoryPayout(input.pool, yesPayoutCents);
  if (poolPayoutCents > 0)
    postings.push({ account: { kind: 'conversion', eventId }, amount: poolPayoutCents });
  escrowOut += housePayoutCents + poolPayoutCents;
  if (escrowOut > 0) postings.push({ account: { kind: 'escrow', optionId }, amount: -escrowOut });
  const entry: JournalEntry = {
    kind: 'settlement',
    memo: `Settlement of option ${optionId} (${input.label}) as ${outcome}`,
    ref: { type: 'option', id: optionId },
    postings,
  };
  return { positions, records, entry, housePayoutCents, poolPayoutCents };
}

/** What YES and NO shares held by the house (its maker, or the conversion pool) pay when the option settles. */
export function inventoryPayout(
  held: { yesShares: number; noShares: number },
  yesPayoutCents: number,
): number {
  return (
    settlePosition({ ...EMPTY_POSITION, quantity: held.yesShares }, 'YES', yesPayoutCents).payoutCents +
    settlePosition({ ...EMPTY_POSITION, quantity: held.noShares }, 'NO', yesPayoutCents).payoutCents
  );
}

/**
 * What a YES share of each option of an exclusive event pays when the event is voided: 100 shared out equally,
 * whole cents, the cents over going to the first options (by id), so that a complete set (one YES of each option)
 * still pays exactly 100, and each option's YES and NO together exactly 100, as when one option wins. Paying 50 a
 * YES share would pay a complete set 50 × n: more than it cost, out of the conversion pool.
 */
export function voidPayouts(optionIds: number[]): Map<number, number> {
  const ordered = [...optionIds].sort((a, b) => a - b);
  const shares = apportion(
    ordered.map(() => 1),
    PAYOUT_CENTS,
  );
  return new Map(ordered.map((id, index) => [id, shares[index] as number]));
}

import { assertCents } from './money.js';

/** A ledger account named by what it is; the repository maps it to a row. */
export type AccountRef =
  /** What a user may spend: taken only by the user's own steps (collateral.ts), never by a market. */
  | { kind: 'cash'; userId: number }
  /** The collateral of a user's resting orders. */
  | { kind: 'reserved'; userId: number }
  /** A user's cash on its way to the markets (set aside for requests) and back (what markets gave back). */
  | { kind: 'transit'; userId: number }
  | { kind: 'escrow'; optionId: number }
  /** An exclusive event's conversion pool (conversions.ts). */
  | { kind: 'conversion'; eventId: number }
  | { kind: 'bonus' }
  | { kind: 'amm' }
  | { kind: 'fees' }
  | { kind: 'stakes' };

export interface Posting {
  account: AccountRef;
  amount: number;
}

/** Why money moved: one kind per business change that posts to the ledger, and the only kinds there are. */
export type EntryKind =
  /** A user's collateral step: cash set aside for requests, and what the markets gave back taken into cash. */
  | 'collateral'
  /** An order placed: what it paid, received and set aside, and the own resting orders it cancelled. */
  | 'order'
  /** A resting order shrunk in place: the collateral it no longer needs. */
  | 'order_amend'
  | 'order_cancel'
  | 'order_expiry'
  /** Shares of an exclusive event's options exchanged with its conversion pool. */
  | 'conversion'
  /** An option paid out of its escrow at settlement. */
  | 'settlement'
  /** House credit from `bonus`: a new account's, a daily streak's, a referral's. */
  | 'signup_credit'
  | 'streak_bonus'
  | 'referral_reward'
  /** A head-to-head challenge's stakes held in `stakes`, and paid out of it. */
  | 'challenge_stake'
  | 'challenge_payout'
  | 'tournament_prize';

export interface JournalEntry {
  kind: EntryKind;
  memo: string;
  userId?: number;
  ref?: { type: string; id: number };
  postings: Posting[];
}

export function accountKey(account: AccountRef): string {
  switch (account.kind) {
    case 'cash':
    case 'reserved':
    case 'transit':
      return `${account.kind}:${account.userId}`;
    case 'escrow':
      return `escrow:${account.optionId}`;
    case 'conversion':
      return `conversion:${account.eventId}`;
    default:
      return account.kind;
  }
}

export function isUserAccount(
  account: AccountRef,
): account is { kind: 'cash' | 'reserved' | 'transit'; userId: number } {
  return account.kind === 'cash' || account.kind === 'reserved' || account.kind === 'transit';
}

/**
 * The accounts many markets post to at once keep no balance of their own: their balance is the sum of their
 * postings, so that posting to them waits for no other transaction (docs/architecture.md, "Markets that do not wait
 * for each other"). The others keep a balance, changed under a lock by their owner alone.
 */
export const SUMMED_KINDS = [
  'reserved',
  'transit',
  'amm',
  'fees',
] as const satisfies readonly AccountRef['kind'][];

export function keepsBalance(account: AccountRef): boolean {
  return !(SUMMED_KINDS as readonly string[]).includes(account.kind);
}

/**
 * Nets the postings of an entry by account, drops zero lines and orders them canonically, so that
 * concurrent transactions always lock ledger rows in the same order. Throws unless they sum to zero.
 */
export function normaliseEntry(entry: JournalEntry): JournalEntry {
  const byKey = new Map<string, Posting>();
  let sum = 0;
  for (const posting of entry.postings) {
    assertCents(posting.amount, `posting to ${accountKey(posting.account)}`);
    sum += posting.amount;
    const key = accountKey(posting.account);
    const existing = byKey.get(key);
    if (existing) existing.amount += posting.amount;
    else byKey.set(key, { account: posting.account, amount: posting.amount });
  }
  if (sum !== 0) throw new Error(`journal entry "${entry.kind}" does not balance: postings sum to ${sum}`);
  const postings = [...byKey.entries()]
    .filter(([, posting]) => posting.amount !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, posting]) => posting);
  return { ...entry, postings };
}

/** Moves `amount` cents from one account to another as a two-line entry. */
export function transfer(from: AccountRef, to: AccountRef, amount: number): Posting[] {
  return [
    { account: from, amount: -amount },
    { account: to, amount },
  ];
}

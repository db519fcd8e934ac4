import { assertCents } from './money.js';

/** A ledger account named by what it is; the repository maps it to a row. */
export type AccountRef =
  | { kind: 'cash'; userId: number }
  | { kind: 'reserved'; userId: number }
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

export interface JournalEntry {
  kind: string;
  memo: string;
  userId?: number;
  ref?: { type: string; id: number };
  postings: Posting[];
}

export function accountKey(account: AccountRef): string {
  switch (account.kind) {
    case 'cash':
    case 'reserved':
      return `${account.kind}:${account.userId}`;
    case 'escrow':
      return `escrow:${account.optionId}`;
    case 'conversion':
      return `conversion:${account.eventId}`;
    default:
      return account.kind;
  }
}

export function isUserAccount(account: AccountRef): account is { kind: 'cash' | 'reserved'; userId: number } {
  return account.kind === 'cash' || account.kind === 'reserved';
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

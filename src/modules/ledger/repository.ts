import type { Kysely } from 'kysely';
import { type AccountRef, accountKey, type JournalEntry, normaliseEntry } from '../../exchange/ledger.js';
import type { DB } from '../../platform/db/schema.js';
import type { Queryable, Tx } from '../../platform/db/types.js';
import { InsufficientFundsError } from '../../platform/errors.js';

export interface UserBalances {
  cashCents: number;
  reservedCents: number;
}

/** The only writer of ledger rows: each entry is one journal entry, its postings and the cached balances. */
export class LedgerRepository {
  async openUserAccounts(trx: Queryable, userId: number): Promise<void> {
    await trx
      .insertInto('ledger_accounts')
      .values([
        { kind: 'cash', user_id: userId },
        { kind: 'reserved', user_id: userId },
      ])
      .execute();
  }

  async openEscrowAccount(trx: Queryable, optionId: number): Promise<void> {
    await trx.insertInto('ledger_accounts').values({ kind: 'escrow', option_id: optionId }).execute();
  }

  /**
   * Writes an entry inside the caller's transaction. A user account that would go negative raises
   * InsufficientFundsError (for cash) before anything is written, so the caller's transaction rolls back.
   */
  async post(trx: Tx, entry: JournalEntry): Promise<number | null> {
    const normalised = normaliseEntry(entry);
    if (normalised.postings.length === 0) return null;
    const lines: { account_id: number; amount: number }[] = [];
    for (const posting of normalised.postings) {
      const accountId = await this.applyToBalance(trx, posting.account, posting.amount);
      lines.push({ account_id: accountId, amount: posting.amount });
    }
    const { id } = await trx
      .insertInto('journal_entries')
      .values({
        kind: normalised.kind,
        memo: normalised.memo,
        user_id: normalised.userId ?? null,
        ref_type: normalised.ref?.type ?? null,
        ref_id: normalised.ref?.id ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('postings')
      .values(lines.map((line) => ({ entry_id: id, ...line })))
      .execute();
    return id;
  }

  private async applyToBalance(trx: Tx, account: AccountRef, amount: number): Promise<number> {
    let query = trx
      .updateTable('ledger_accounts')
      .set((eb) => ({ balance: eb('balance', '+', amount) }))
      .where('kind', '=', account.kind)
      .returning('id');
    if (account.kind === 'cash' || account.kind === 'reserved') {
      query = query.where('user_id', '=', account.userId);
      if (amount < 0) query = query.where((eb) => eb(eb('balance', '+', amount), '>=', 0));
    } else if (account.kind === 'escrow') {
      query = query.where('option_id', '=', account.optionId);
    } else {
      query = query.where('user_id', 'is', null).where('option_id', 'is', null);
    }
    const row = await query.executeTakeFirst();
    if (row) return row.id;
    if (account.kind === 'cash') {
      const available = await this.balanceOf(trx, account);
      throw new InsufficientFundsError(-amount, available);
    }
    throw new Error(`ledger account ${accountKey(account)} is missing or would go negative`);
  }

  async balanceOf(db: Queryable, account: AccountRef): Promise<number> {
    let query = db.selectFrom('ledger_accounts').select('balance').where('kind', '=', account.kind);
    if (account.kind === 'cash' || account.kind === 'reserved')
      query = query.where('user_id', '=', account.userId);
    else if (account.kind === 'escrow') query = query.where('option_id', '=', account.optionId);
    else query = query.where('user_id', 'is', null).where('option_id', 'is', null);
    const row = await query.executeTakeFirst();
    return row?.balance ?? 0;
  }

  async userBalances(db: Queryable, userId: number): Promise<UserBalances> {
    const rows = await db
      .selectFrom('ledger_accounts')
      .select(['kind', 'balance'])
      .where('user_id', '=', userId)
      .execute();
    return {
      cashCents: rows.find((row) => row.kind === 'cash')?.balance ?? 0,
      reservedCents: rows.find((row) => row.kind === 'reserved')?.balance ?? 0,
    };
  }
}

export type LedgerDb = Kysely<DB>;

import { type Kysely, sql } from 'kysely';
import { holdCollateral } from '../../exchange/collateral.js';
import {
  type AccountRef,
  accountKey,
  isUserAccount,
  type JournalEntry,
  keepsBalance,
  normaliseEntry,
  type Posting,
} from '../../exchange/ledger.js';
import { numberArray, textArray } from '../../platform/db/arrays.js';
import type { DB } from '../../platform/db/schema.js';
import { nextId } from '../../platform/db/sequences.js';
import type { Queryable, Tx } from '../../platform/db/types.js';
import { InsufficientFundsError } from '../../platform/errors.js';
import { CollateralRepository } from './collateral-repository.js';

export interface UserBalances {
  cashCents: number;
  reservedCents: number;
}

/** The only writer of ledger rows: each entry is one journal entry, its postings and the cached balances. */
export class LedgerRepository {
  private readonly knownIds = new Map<string, number>();

  async openUserAccounts(trx: Queryable, userId: number): Promise<void> {
    await trx
      .insertInto('ledger_accounts')
      .values([
        { kind: 'cash', user_id: userId, balance: 0 },
        { kind: 'reserved', user_id: userId, balance: null },
        { kind: 'transit', user_id: userId, balance: null },
      ])
      .execute();
  }

  async openEscrowAccount(trx: Queryable, optionId: number): Promise<void> {
    await trx.insertInto('ledger_accounts').values({ kind: 'escrow', option_id: optionId }).execute();
  }

  /** The conversion pool account of an exclusive event (conversions.ts); opened once, when first needed. */
  async openConversionAccount(trx: Queryable, eventId: number): Promise<void> {
    await sql`
      INSERT INTO ledger_accounts (kind, event_id) VALUES ('conversion', ${eventId})
      ON CONFLICT (event_id, kind) WHERE event_id IS NOT NULL DO NOTHING`.execute(trx);
  }

  /**
   * Writes an entry inside the caller's transaction. The balances it changes are updated in ascending account id,
   * the order every writer takes them in (docs/architecture.md, "Lock order"). A cash account that would go
   * negative raises InsufficientFundsError before anything is written, so the caller's transaction rolls back.
   */
  async post(trx: Tx, entry: JournalEntry): Promise<number | null> {
    const normalised = normaliseEntry(entry);
    if (normalised.postings.length === 0) return null;
    const ids = await this.accountIds(
      trx,
      normalised.postings.map((posting) => posting.account),
    );
    const lines = normalised.postings
      .map((posting) => ({ posting, account_id: ids.get(accountKey(posting.account)) as number }))
      .sort((a, b) => a.account_id - b.account_id);
    for (const { posting, account_id } of lines)
      if (keepsBalance(posting.account)) await this.applyToBalance(trx, account_id, posting);
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
      .values(lines.map(({ posting, account_id }) => ({ entry_id: id, account_id, amount: posting.amount })))
      .execute();
    return id;
  }

  /**
   * Writes many entries at once (the batched order path) in one statement: the balances, netted per account,
   * the entries and their postings. A user account that would go negative fails the whole statement (the
   * balance check constraint), so the caller's transaction rolls back.
   */
  async postMany(trx: Tx, entries: JournalEntry[]): Promise<void> {
    const normalised = entries.map(normaliseEntry).filter((entry) => entry.postings.length > 0);
    if (normalised.length === 0) return;
    const ids = await this.accountIds(
      trx,
      normalised.flatMap((entry) => entry.postings.map((posting) => posting.account)),
    );
    const deltas = new Map<number, number>();
    for (const entry of normalised) {
      for (const posting of entry.postings) {
        const id = ids.get(accountKey(posting.account)) as number;
        deltas.set(id, (deltas.get(id) ?? 0) + posting.amount);
      }
    }
    const kept = new Set(
      normalised
        .flatMap((entry) =>
          entry.postings.filter((posting) => keepsBalance(posting.account)).map((posting) => posting.account),
        )
        .map((account) => ids.get(accountKey(account)) as number),
    );
    const changed = [...deltas]
      .filter(([id, delta]) => delta !== 0 && kept.has(id))
      .sort(([a], [b]) => a - b);
    const lines = normalised.flatMap((entry, index) =>
      entry.postings.map((posting) => ({
        entry: index + 1,
        account: ids.get(accountKey(posting.account)) as number,
        amount: posting.amount,
      })),
    );
    await sql`
      WITH entry_ids AS MATERIALIZED (
        SELECT ord, ${nextId('journal_entries')} AS id
        FROM generate_series(1, ${normalised.length}::int) AS ord
      ),
      balances AS (
        UPDATE ledger_accounts SET balance = balance + v.delta
        FROM unnest(${numberArray(changed.map(([id]) => id))}::bigint[], ${numberArray(changed.map(([, delta]) => delta))}::bigint[])
          AS v(id, delta)
        WHERE ledger_accounts.id = v.id
      ),
      entries AS (
        INSERT INTO journal_entries (id, kind, memo, user_id, ref_type, ref_id)
        OVERRIDING SYSTEM VALUE
        SELECT entry_ids.id, v.kind, v.memo, v.user_id, v.ref_type, v.ref_id
        FROM unnest(${textArray(normalised.map((e) => e.kind))}::text[], ${textArray(normalised.map((e) => e.memo))}::text[],
          ${numberArray(normalised.map((e) => e.userId ?? null))}::bigint[], ${textArray(normalised.map((e) => e.ref?.type ?? null))}::text[],
          ${numberArray(normalised.map((e) => e.ref?.id ?? null))}::bigint[])
          WITH ORDINALITY AS v(kind, memo, user_id, ref_type, ref_id, ord)
        JOIN entry_ids USING (ord)
      )
      INSERT INTO postings (entry_id, account_id, amount)
      SELECT entry_ids.id, v.account_id, v.amount
      FROM unnest(${numberArray(lines.map((l) => l.entry))}::int[], ${numberArray(lines.map((l) => l.account))}::bigint[],
        ${numberArray(lines.map((l) => l.amount))}::bigint[]) AS v(ord, account_id, amount)
      JOIN entry_ids USING (ord)`.execute(trx);
  }

  /** Row ids of ledger accounts (they never change once an account exists, so they are remembered). */
  private async accountIds(db: Queryable, accounts: AccountRef[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const users = new Set<number>();
    const options = new Set<number>();
    const events = new Set<number>();
    let house = false;
    for (const account of accounts) {
      const key = accountKey(account);
      const known = this.knownIds.get(key);
      if (known !== undefined) {
        out.set(key, known);
        continue;
      }
      if (isUserAccount(account)) users.add(account.userId);
      else if (account.kind === 'escrow') options.add(account.optionId);
      else if (account.kind === 'conversion') events.add(account.eventId);
      else house = true;
    }
    if (users.size + options.size + events.size > 0 || house) {
      const rows = await db
        .selectFrom('ledger_accounts')
        .select(['id', 'kind', 'user_id', 'option_id', 'event_id'])
        .where((eb) =>
          eb.or([
            ...(users.size ? [eb('user_id', 'in', [...users])] : []),
            ...(options.size ? [eb('option_id', 'in', [...options])] : []),
            ...(events.size ? [eb('event_id', 'in', [...events])] : []),
            ...(house
              ? [eb.and([eb('user_id', 'is', null), eb('option_id', 'is', null), eb('event_id', 'is', null)])]
              : []),
          ]),
        )
        .execute();
      for (const row of rows) {
        const key = accountKey(accountOfRow(row));
        if (this.knownIds.size > 100_000) this.knownIds.clear();
        this.knownIds.set(key, row.id);
        out.set(key, row.id);
      }
    }
    for (const account of accounts) {
      if (!out.has(accountKey(account))) throw new Error(`ledger account ${accountKey(account)} is missing`);
    }
    return out;
  }

  /** Adds a posting to its account's kept balance; cash may not go below zero. */
  private async applyToBalance(trx: Tx, accountId: number, posting: Posting): Promise<void> {
    const { account, amount } = posting;
    let query = trx
      .updateTable('ledger_accounts')
      .set((eb) => ({ balance: eb('balance', '+', amount) }))
      .where('id', '=', accountId)
      .returning('id');
    if (account.kind === 'cash' && amount < 0)
      query = query.where((eb) => eb(eb('balance', '+', amount), '>=', 0));
    if (await query.executeTakeFirst()) return;
    if (account.kind === 'cash') {
      const available = await this.balanceOf(trx, account);
      throw new InsufficientFundsError(-amount, available);
    }
    throw new Error(`ledger account ${accountKey(account)} would go negative`);
  }

  /**
   * A user's cash to spend now, in the caller's transaction: their cash account locked (the first rank of the lock
   * order), with what markets gave back to them taken into it first (src/exchange/collateral.ts).
   */
  async spendableCash(trx: Tx, userId: number): Promise<number> {
    const collateral = new CollateralRepository();
    const cash = await collateral.lockCash(trx, [userId]);
    const returned = await collateral.takeReturns(trx, [userId]);
    const step = holdCollateral(cash, returned, []);
    await this.postMany(trx, step.entries);
    return step.cashAfter.get(userId) ?? 0;
  }

  /** An account's balance: the one it keeps, or the sum of its postings for an account that keeps none. */
  async balanceOf(db: Queryable, account: AccountRef): Promise<number> {
    const [id] = (await this.accountIds(db, [account])).values();
    if (!keepsBalance(account)) {
      const row = await db
        .selectFrom('postings')
        .select(sql<string>`coalesce(sum(amount), 0)`.as('total'))
        .where('account_id', '=', id as number)
        .executeTakeFirst();
      return Number(row?.total ?? 0);
    }
    const row = await db
      .selectFrom('ledger_accounts')
      .select('balance')
      .where('id', '=', id as number)
      .executeTakeFirst();
    return row?.balance ?? 0;
  }

  /**
   * A user's cash as they see it (their cash account, with what is on its way to the markets and back: the holds
   * and returns their transit account is made of) and the collateral of their resting orders.
   */
  async userBalances(db: Queryable, userId: number): Promise<UserBalances> {
    const { rows } = await sql<{ cash: string | null; transit: string | null; reserved: string | null }>`
      SELECT (SELECT balance FROM ledger_accounts WHERE kind = 'cash' AND user_id = ${userId}) AS cash,
        (SELECT coalesce(sum(amount_cents), 0) FROM collateral_holds WHERE user_id = ${userId})
          + (SELECT coalesce(sum(amount_cents), 0) FROM collateral_returns WHERE user_id = ${userId}) AS transit,
        (SELECT coalesce(sum(reserved_cents), 0) FROM orders
          WHERE user_id = ${userId} AND status IN ('open', 'partially_filled')) AS reserved`.execute(db);
    const row = rows[0];
    return {
      cashCents: Number(row?.cash ?? 0) + Number(row?.transit ?? 0),
      reservedCents: Number(row?.reserved ?? 0),
    };
  }
}

export type LedgerDb = Kysely<DB>;

/** The account a ledger row is, by what owns it. */
function accountOfRow(row: {
  kind: AccountRef['kind'];
  user_id: number | null;
  option_id: number | null;
  event_id: number | null;
}): AccountRef {
  switch (row.kind) {
    case 'cash':
    case 'reserved':
    case 'transit':
      return { kind: row.kind, userId: row.user_id as number };
    case 'escrow':
      return { kind: 'escrow', optionId: row.option_id as number };
    case 'conversion':
      return { kind: 'conversion', eventId: row.event_id as number };
    default:
      return { kind: row.kind };
  }
}

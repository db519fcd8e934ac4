import { sql } from 'kysely';
import { numberArray, textArray } from '../../platform/db/arrays.js';
import { takenIds } from '../../platform/db/sequences.js';
import type { Queryable } from '../../platform/db/types.js';

/** Cash set aside for one part of a request on its way to a market. */
export interface NewHold {
  userId: number;
  market: string;
  cents: number;
}

/** A return's share for a user: what a market's transaction gave back to them, to be taken into cash later. */
export interface NewReturn {
  userId: number;
  cents: number;
}

/**
 * The rows a user's transit account is made of (src/exchange/collateral.ts): holds, set aside by the user's
 * collateral step and spent by a market, and returns, given back by a market and taken into cash by the user's
 * next step. Holds are inserted and returns deleted under the user's cash lock; holds are deleted and returns
 * inserted by the markets' transactions, which never lock a user's cash.
 */
export class CollateralRepository {
  /**
   * Locks the cash accounts of these users, in ascending account id (the first rank of the lock order): their
   * balances. `FOR NO KEY UPDATE`, as the update that follows takes it, so the rows' key-share readers go on.
   */
  async lockCash(db: Queryable, userIds: number[]): Promise<Map<number, number>> {
    if (userIds.length === 0) return new Map();
    const { rows } = await sql<{ user_id: string; balance: string }>`
      SELECT user_id, balance FROM ledger_accounts
      WHERE kind = 'cash' AND user_id = ANY(${numberArray(userIds)}::bigint[])
      ORDER BY id FOR NO KEY UPDATE`.execute(db);
    return new Map(rows.map((row) => [Number(row.user_id), Number(row.balance)]));
  }

  /** Deletes what markets gave back to these users (under their cash lock): each user's total. */
  async takeReturns(db: Queryable, userIds: number[]): Promise<Map<number, number>> {
    if (userIds.length === 0) return new Map();
    const { rows } = await sql<{ user_id: string; total: string }>`
      WITH taken AS (
        DELETE FROM collateral_returns WHERE user_id = ANY(${numberArray(userIds)}::bigint[])
        RETURNING user_id, amount_cents
      )
      SELECT user_id, sum(amount_cents) AS total FROM taken GROUP BY user_id`.execute(db);
    return new Map(rows.map((row) => [Number(row.user_id), Number(row.total)]));
  }

  /** Inserts holds expiring `lifetimeMs` from the database's clock; their ids, in the order given (ids rise with it). */
  async insertHolds(db: Queryable, holds: NewHold[], lifetimeMs: number): Promise<number[]> {
    if (holds.length === 0) return [];
    const { rows } = await sql<{ id: string }>`
      WITH taken AS (SELECT ${takenIds('collateral_holds', holds.length)} AS ids)
      INSERT INTO collateral_holds (id, user_id, market, amount_cents, expires_at)
      OVERRIDING SYSTEM VALUE
      SELECT taken.ids[v.ord], v.user_id, v.market, v.cents,
        now() + make_interval(secs => ${lifetimeMs / 1000}::float8)
      FROM taken, unnest(${numberArray(holds.map((h) => h.userId))}::bigint[], ${textArray(holds.map((h) => h.market))}::text[],
        ${numberArray(holds.map((h) => h.cents))}::bigint[]) WITH ORDINALITY AS v(user_id, market, cents, ord)
      RETURNING id`.execute(db);
    return rows.map((row) => Number(row.id)).sort((a, b) => a - b);
  }

  /** Spends holds (a market's transaction deciding their requests): the ids of those that were still there. */
  async spendHolds(db: Queryable, ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const { rows } = await sql<{ id: string }>`
      DELETE FROM collateral_holds WHERE id = ANY(${numberArray(ids)}::bigint[]) RETURNING id`.execute(db);
    return new Set(rows.map((row) => Number(row.id)));
  }

  /** Records what a market's transaction gave back, one row a user. */
  async insertReturns(db: Queryable, returns: NewReturn[]): Promise<void> {
    if (returns.length === 0) return;
    await sql`
      INSERT INTO collateral_returns (user_id, amount_cents)
      SELECT * FROM unnest(${numberArray(returns.map((r) => r.userId))}::bigint[],
        ${numberArray(returns.map((r) => r.cents))}::bigint[])`.execute(db);
  }

  /**
   * Gives unspent holds back as returns: those named (requests answered without being decided), or those past their
   * expiry (`ids` null: a request whose instance stopped before it was decided), skipping any a market is spending.
   */
  async releaseHolds(db: Queryable, ids: number[] | null, limit = 1000): Promise<number> {
    const { rows } = await sql<{ released: string }>`
      WITH due AS (
        SELECT id FROM collateral_holds
        WHERE ${ids === null ? sql`expires_at < now()` : sql`id = ANY(${numberArray(ids)}::bigint[])`}
        ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED
      ),
      released AS (
        DELETE FROM collateral_holds h USING due WHERE h.id = due.id RETURNING h.user_id, h.amount_cents
      ),
      returned AS (
        INSERT INTO collateral_returns (user_id, amount_cents) SELECT user_id, amount_cents FROM released
      )
      SELECT count(*) AS released FROM released`.execute(db);
    return Number(rows[0]?.released ?? 0);
  }

  /** Users with returns waiting since before `olderThanMs` ago, oldest first: the claim job's work. */
  async usersWithReturns(db: Queryable, olderThanMs: number, limit: number): Promise<number[]> {
    const { rows } = await sql<{ user_id: string }>`
      SELECT user_id FROM collateral_returns
      WHERE created_at < now() - make_interval(secs => ${olderThanMs / 1000}::float8)
      GROUP BY user_id ORDER BY min(id) LIMIT ${limit}`.execute(db);
    return rows.map((row) => Number(row.user_id));
  }
}

import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/types.js';

/** Idempotency keys and their stored answers, and the clientOrderIds already given to orders. */
export class IdempotencyRepository {
  /** The stored results of idempotency keys already used by these users. */
  async findIdempotencyKeys(db: Queryable, keys: { userId: number; key: string }[]) {
    if (keys.length === 0) return [];
    return db
      .selectFrom('idempotency_keys')
      .select(['user_id', 'key', 'request_hash', 'status_code', 'response'])
      .where((eb) => eb.or(keys.map((k) => eb.and([eb('user_id', '=', k.userId), eb('key', '=', k.key)]))))
      .execute();
  }

  /** Which of these clientOrderIds their users have already given to an order. */
  usedClientOrderIds(db: Queryable, names: { userId: number; clientOrderId: string }[]) {
    return db
      .selectFrom('orders')
      .select(['user_id', 'client_order_id'])
      .where((eb) =>
        eb.or(
          names.map((n) =>
            eb.and([eb('user_id', '=', n.userId), eb('client_order_id', '=', n.clientOrderId)]),
          ),
        ),
      )
      .execute();
  }

  /** Stores idempotency keys with their results; returns how many were new (a race makes it fewer). */
  async insertIdempotencyResults(
    db: Queryable,
    rows: { userId: number; key: string; requestHash: string; statusCode: number; response: unknown }[],
  ): Promise<number> {
    if (rows.length === 0) return 0;
    const { rows: inserted } = await sql<{ key: string }>`
      INSERT INTO idempotency_keys (user_id, key, request_hash, status_code, response)
      SELECT u, k, h, s, r::jsonb FROM unnest(${rows.map((row) => row.userId)}::bigint[],
        ${rows.map((row) => row.key)}::text[], ${rows.map((row) => row.requestHash)}::text[],
        ${rows.map((row) => row.statusCode)}::int[], ${rows.map((row) => JSON.stringify(row.response))}::text[])
        AS v(u, k, h, s, r)
      ON CONFLICT (user_id, key) DO NOTHING
      RETURNING key`.execute(db);
    return inserted.length;
  }

  /**
   * Claims an idempotency key for a request answered in several parts (a batch): stored with the request's
   * fingerprint and no answer of its own. 'new' the first time; after that 'same' for the same request, or 'mismatch'.
   */
  async claimIdempotencyKey(
    db: Queryable,
    userId: number,
    key: string,
    requestHash: string,
  ): Promise<'new' | 'same' | 'mismatch'> {
    const claimed = await db
      .insertInto('idempotency_keys')
      .values({ user_id: userId, key, request_hash: requestHash })
      .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst();
    if (claimed) return 'new';
    // A statement of its own, so that it sees the row a concurrent claim committed.
    const row = await db
      .selectFrom('idempotency_keys')
      .select('request_hash')
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row) return 'mismatch';
    return row.request_hash === requestHash ? 'same' : 'mismatch';
  }
}

import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/types.js';

export interface SecurityEventEntry {
  userId: number;
  kind: string;
  address: string | null;
  userAgent: string | null;
  details: Record<string, unknown> | null;
}

export interface SecurityEventRow {
  id: number;
  kind: string;
  address: string | null;
  user_agent: string | null;
  details: unknown;
  created_at: Date;
}

/** The SQL of the security log, and the lookups that say whose account a request that failed was about. */
export class SecurityLogRepository {
  async insert(db: Queryable, entry: SecurityEventEntry): Promise<void> {
    await db
      .insertInto('security_events')
      .values({
        user_id: entry.userId,
        kind: entry.kind,
        address: entry.address?.slice(0, 100) ?? null,
        user_agent: entry.userAgent?.slice(0, 300) ?? null,
        details: entry.details === null ? null : JSON.stringify(entry.details).slice(0, 2000),
      })
      .execute();
  }

  /** Inserts the entry unless the account has one of its kind from the last `seconds` (throttling repeats itself). */
  async insertOnce(db: Queryable, entry: SecurityEventEntry, seconds: number): Promise<void> {
    await sql`
      INSERT INTO security_events (user_id, kind, address, user_agent, details)
      SELECT ${entry.userId}, ${entry.kind}, ${entry.address?.slice(0, 100) ?? null},
             ${entry.userAgent?.slice(0, 300) ?? null}, ${entry.details === null ? null : JSON.stringify(entry.details)}::jsonb
      WHERE NOT EXISTS (
        SELECT 1 FROM security_events
        WHERE user_id = ${entry.userId} AND kind = ${entry.kind}
          AND created_at > now() - make_interval(secs => ${seconds})
      )`.execute(db);
  }

  /**
   * Whether the account signed in before, and whether it signed in (or registered) from this address with this
   * user agent within the last `days`.
   */
  async signInHistory(db: Queryable, entry: SecurityEventEntry, days: number) {
    const { rows } = await sql<{ signed_in_before: boolean; seen: boolean }>`
      SELECT
        EXISTS (SELECT 1 FROM security_events WHERE user_id = ${entry.userId} AND kind = 'login') AS signed_in_before,
        EXISTS (
          SELECT 1 FROM security_events
          WHERE user_id = ${entry.userId} AND kind IN ('login', 'account_created')
            AND address IS NOT DISTINCT FROM ${entry.address?.slice(0, 100) ?? null}::text
            AND user_agent IS NOT DISTINCT FROM ${entry.userAgent?.slice(0, 300) ?? null}::text
            AND created_at > now() - make_interval(days => ${days})
        ) AS seen`.execute(db);
    const row = rows[0];
    return { signedInBefore: row?.signed_in_before === true, seen: row?.seen === true };
  }

  /** Deletes up to `limit` of the entries older than `days`, the oldest first; how many went. */
  async deleteOlderThan(db: Queryable, days: number, limit: number): Promise<number> {
    const result = await sql`
      DELETE FROM security_events WHERE id IN (
        SELECT id FROM security_events
        WHERE created_at < now() - make_interval(days => ${days})
        ORDER BY created_at
        LIMIT ${limit}
      )`.execute(db);
    return Number(result.numAffectedRows ?? 0);
  }

  /** Newest first, `limit + 1` rows from before `beforeId`. */
  list(db: Queryable, userId: number, limit: number, beforeId: number | null): Promise<SecurityEventRow[]> {
    let query = db
      .selectFrom('security_events')
      .select(['id', 'kind', 'address', 'user_agent', 'details', 'created_at'])
      .where('user_id', '=', userId);
    if (beforeId !== null) query = query.where('id', '<', beforeId);
    return query
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
  }

  async userByEmail(db: Queryable, email: string): Promise<number | null> {
    const row = await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
    return row?.id ?? null;
  }

  async userByLoginChallenge(db: Queryable, tokenHash: string): Promise<number | null> {
    const row = await db
      .selectFrom('login_challenges')
      .select('user_id')
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row?.user_id ?? null;
  }

  async userByEmailLink(db: Queryable, tokenHash: string): Promise<number | null> {
    const row = await db
      .selectFrom('email_links')
      .select('user_id')
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row?.user_id ?? null;
  }

  async userByPasskey(db: Queryable, credentialId: string): Promise<number | null> {
    const row = await db
      .selectFrom('passkeys')
      .select('user_id')
      .where('credential_id', '=', credentialId)
      .executeTakeFirst();
    return row?.user_id ?? null;
  }
}

import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/types.js';
import type { EmailLinkPurpose } from './tables.js';

/** A count of failed logins is forgotten this long after its last failure. */
const FORGET_FAILURES_AFTER_HOURS = 24;
/** An address an account has not signed in from for this long is no longer known to it. */
const KNOWN_ADDRESS_DAYS = 180;

/** The SQL of signing in: failed-login counters, the addresses accounts sign in from, and mailed links. */
export class SignInRepository {
  /** Counts a failure against a key (starting again after a quiet day); the failures counted so far. */
  async recordFailure(db: Queryable, key: string): Promise<number> {
    const result = await sql<{ failures: number }>`
      INSERT INTO login_throttle (key, failures, last_failed_at) VALUES (${key}, 1, now())
      ON CONFLICT (key) DO UPDATE SET
        failures = CASE
          WHEN login_throttle.last_failed_at < now() - make_interval(hours => ${FORGET_FAILURES_AFTER_HOURS})
          THEN 1 ELSE login_throttle.failures + 1 END,
        last_failed_at = now()
      RETURNING failures`.execute(db);
    return result.rows[0]?.failures ?? 1;
  }

  async blockUntil(db: Queryable, key: string, seconds: number): Promise<void> {
    await sql`UPDATE login_throttle SET blocked_until = now() + make_interval(secs => ${seconds})
      WHERE key = ${key}`.execute(db);
  }

  /** Seconds until each of these keys is heard again; keys not slowed down are absent. */
  async blockedFor(db: Queryable, keys: string[]): Promise<Map<string, number>> {
    const result = await sql<{ key: string; seconds: number }>`
      SELECT key, ceil(extract(epoch from (blocked_until - now())))::int AS seconds FROM login_throttle
      WHERE key IN (${sql.join(keys)}) AND blocked_until > now()`.execute(db);
    return new Map(result.rows.map((row) => [row.key, Math.max(1, row.seconds)]));
  }

  async clearFailures(db: Queryable, key: string): Promise<void> {
    await db.deleteFrom('login_throttle').where('key', '=', key).execute();
  }

  async isKnownAddress(db: Queryable, userId: number, addressHash: string): Promise<boolean> {
    const row = await db
      .selectFrom('login_known_addresses')
      .select('user_id')
      .where('user_id', '=', userId)
      .where('address_hash', '=', addressHash)
      .where(sql<boolean>`last_seen_at > now() - make_interval(days => ${KNOWN_ADDRESS_DAYS})`)
      .executeTakeFirst();
    return row !== undefined;
  }

  async rememberAddress(db: Queryable, userId: number, addressHash: string): Promise<void> {
    await db
      .insertInto('login_known_addresses')
      .values({ user_id: userId, address_hash: addressHash })
      .onConflict((oc) => oc.columns(['user_id', 'address_hash']).doUpdateSet({ last_seen_at: new Date() }))
      .execute();
  }

  async insertLink(
    db: Queryable,
    link: { userId: number; purpose: EmailLinkPurpose; email: string; tokenHash: string; expiresAt: Date },
  ): Promise<void> {
    await db
      .insertInto('email_links')
      .values({
        user_id: link.userId,
        purpose: link.purpose,
        email: link.email,
        token_hash: link.tokenHash,
        expires_at: link.expiresAt,
      })
      .execute();
  }

  /** Whether a link of this purpose went to the user within the last `seconds`. */
  async sentWithin(
    db: Queryable,
    userId: number,
    purpose: EmailLinkPurpose,
    seconds: number,
  ): Promise<boolean> {
    const row = await db
      .selectFrom('email_links')
      .select('id')
      .where('user_id', '=', userId)
      .where('purpose', '=', purpose)
      .where(sql<boolean>`created_at > now() - make_interval(secs => ${seconds})`)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Uses a live link (unused, unexpired) once: the user and address it was sent to, or null when there is no such
   * link. Every other live link of the same purpose for that user ends with it.
   */
  async useLink(
    db: Queryable,
    tokenHash: string,
    purpose: EmailLinkPurpose,
  ): Promise<{ userId: number; email: string } | null> {
    const row = await db
      .updateTable('email_links')
      .set({ used_at: new Date() })
      .where('token_hash', '=', tokenHash)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', new Date())
      .returning(['user_id', 'email'])
      .executeTakeFirst();
    if (!row) return null;
    await db
      .updateTable('email_links')
      .set({ used_at: new Date() })
      .where('user_id', '=', row.user_id)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .execute();
    return { userId: row.user_id, email: row.email };
  }

  /** Marks the address proven when the account still has the address the link went to; whether it did. */
  async markVerified(db: Queryable, userId: number, email: string): Promise<boolean> {
    const row = await db
      .updateTable('users')
      .set({ email_verified_at: sql`coalesce(email_verified_at, now())` })
      .where('id', '=', userId)
      .where('email', '=', email)
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }
}

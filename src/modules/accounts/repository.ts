import { sql } from 'kysely';
import type { AuthUser } from '../../platform/auth.js';
import type { NewUser, UserRow } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';
import { CREDENTIALS_CHANNEL, type CredentialChange, type ResolvedCredential } from './credentials.js';

export interface ApiKeyRow {
  id: number;
  name: string;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  last_used_ip: string | null;
  revoked_at: Date | null;
}

export interface SessionRow {
  id: number;
  created_at: Date;
  expires_at: Date;
  created_ip: string | null;
  user_agent: string | null;
  last_used_at: Date | null;
  last_used_ip: string | null;
}

/** Where a credential is created or used from. */
export interface CredentialOrigin {
  address: string;
  userAgent?: string | undefined;
}

export class AccountsRepository {
  insertUser(db: Queryable, user: NewUser): Promise<UserRow> {
    return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
  }

  findUserById(db: Queryable, id: number): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
  }

  findUserByUsername(db: Queryable, username: string): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
  }

  findUserByReferralCode(db: Queryable, code: string): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('referral_code', '=', code).executeTakeFirst();
  }

  async usernameTaken(db: Queryable, username: string): Promise<boolean> {
    const row = await db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst();
    return row !== undefined;
  }

  /** Locks the user's row for the rest of the transaction (streak and similar read-modify-write). */
  lockUser(db: Queryable, id: number): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('id', '=', id).forNoKeyUpdate().executeTakeFirst();
  }

  async setStreak(
    db: Queryable,
    id: number,
    streak: { current: number; longest: number; lastDay: string },
  ): Promise<void> {
    await db
      .updateTable('users')
      .set({
        streak_current: streak.current,
        streak_longest: streak.longest,
        streak_last_day: streak.lastDay,
      })
      .where('id', '=', id)
      .execute();
  }

  /** Gives the account with this email the admin role; its id, or null when there is none or it is one already. */
  async promoteToAdmin(db: Queryable, email: string): Promise<number | null> {
    const row = await db
      .updateTable('users')
      .set({ role: 'admin' })
      .where('email', '=', email)
      .where('role', '<>', 'admin')
      .returning('id')
      .executeTakeFirst();
    return row?.id ?? null;
  }

  async insertSession(
    db: Queryable,
    session: { userId: number; tokenHash: string; expiresAt: Date; origin: CredentialOrigin | null },
  ): Promise<void> {
    await db
      .insertInto('sessions')
      .values({
        user_id: session.userId,
        token_hash: session.tokenHash,
        expires_at: session.expiresAt,
        created_ip: session.origin?.address ?? null,
        user_agent: session.origin?.userAgent?.slice(0, 300) ?? null,
        last_used_at: new Date(),
        last_used_ip: session.origin?.address ?? null,
      })
      .execute();
  }

  /** A user's live sessions (not revoked, not expired), most recently used first. */
  listSessions(db: Queryable, userId: number): Promise<SessionRow[]> {
    return db
      .selectFrom('sessions')
      .select(['id', 'created_at', 'expires_at', 'created_ip', 'user_agent', 'last_used_at', 'last_used_ip'])
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', new Date())
      .orderBy(sql`coalesce(last_used_at, created_at)`, 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  /** Revokes a live session of this user; the hash of its token, or null when there is no such session of theirs. */
  async revokeSessionOf(db: Queryable, userId: number, sessionId: number): Promise<string | null> {
    const row = await db
      .updateTable('sessions')
      .set({ revoked_at: new Date() })
      .where('id', '=', sessionId)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', new Date())
      .returning('token_hash')
      .executeTakeFirst();
    return row?.token_hash ?? null;
  }

  /** Revokes every live session of a user except `keepId`; how many were revoked. */
  async revokeOtherSessions(db: Queryable, userId: number, keepId: number | null): Promise<number> {
    let query = db
      .updateTable('sessions')
      .set({ revoked_at: new Date() })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null);
    if (keepId !== null) query = query.where('id', '<>', keepId);
    const rows = await query.returning('id').execute();
    return rows.length;
  }

  async setPasswordHash(db: Queryable, userId: number, passwordHash: string): Promise<void> {
    await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
  }

  /** Revokes a session; the hash of its token, or null when it was revoked already. */
  async revokeSession(db: Queryable, sessionId: number): Promise<string | null> {
    const row = await db
      .updateTable('sessions')
      .set({ revoked_at: new Date() })
      .where('id', '=', sessionId)
      .where('revoked_at', 'is', null)
      .returning('token_hash')
      .executeTakeFirst();
    return row?.token_hash ?? null;
  }

  async insertApiKey(
    db: Queryable,
    key: { userId: number; name: string; prefix: string; keyHash: string },
  ): Promise<ApiKeyRow> {
    return db
      .insertInto('api_keys')
      .values({ user_id: key.userId, name: key.name, prefix: key.prefix, key_hash: key.keyHash })
      .returning(['id', 'name', 'prefix', 'created_at', 'last_used_at', 'last_used_ip', 'revoked_at'])
      .executeTakeFirstOrThrow();
  }

  listApiKeys(db: Queryable, userId: number): Promise<ApiKeyRow[]> {
    return db
      .selectFrom('api_keys')
      .select(['id', 'name', 'prefix', 'created_at', 'last_used_at', 'last_used_ip', 'revoked_at'])
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .orderBy('id', 'desc')
      .execute();
  }

  async countActiveApiKeys(db: Queryable, userId: number): Promise<number> {
    const row = await db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Revokes a key of this user; the hash of the key, or null when there is no such active key of theirs. */
  async revokeApiKey(db: Queryable, userId: number, keyId: number): Promise<string | null> {
    const row = await db
      .updateTable('api_keys')
      .set({ revoked_at: new Date() })
      .where('id', '=', keyId)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .returning('key_hash')
      .executeTakeFirst();
    return row?.key_hash ?? null;
  }

  /** The live credential of a token hash: not revoked and, for a session, not expired. */
  async findCredential(
    db: Queryable,
    tokenHash: string,
    kind: 'session' | 'apiKey',
  ): Promise<ResolvedCredential | null> {
    if (kind === 'session') {
      const row = await db
        .selectFrom('sessions as c')
        .innerJoin('users as u', 'u.id', 'c.user_id')
        .select([
          'c.id as credentialId',
          'u.id as userId',
          'u.role',
          'u.suspended_at',
          'c.expires_at',
          'c.last_used_at',
        ])
        .where('c.token_hash', '=', tokenHash)
        .where('c.revoked_at', 'is', null)
        .where('c.expires_at', '>', new Date())
        .executeTakeFirst();
      return row
        ? { user: authUserOf(row, kind), expiresAt: row.expires_at, lastUsedAt: row.last_used_at }
        : null;
    }
    const row = await db
      .selectFrom('api_keys as c')
      .innerJoin('users as u', 'u.id', 'c.user_id')
      .select(['c.id as credentialId', 'u.id as userId', 'u.role', 'u.suspended_at', 'c.last_used_at'])
      .where('c.key_hash', '=', tokenHash)
      .where('c.revoked_at', 'is', null)
      .executeTakeFirst();
    return row ? { user: authUserOf(row, kind), expiresAt: null, lastUsedAt: row.last_used_at } : null;
  }

  /** Records a credential's use unless it was recorded within `intervalMs` (perhaps by another instance). */
  async touchCredential(
    db: Queryable,
    credential: AuthUser['credential'],
    intervalMs: number,
    address: string | null,
  ): Promise<void> {
    const now = Date.now();
    await db
      .updateTable(credential.kind === 'session' ? 'sessions' : 'api_keys')
      .set({ last_used_at: new Date(now), last_used_ip: address })
      .where('id', '=', credential.id)
      .where((eb) =>
        eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', new Date(now - intervalMs))]),
      )
      .execute();
  }

  /** Tells every instance, when the transaction commits, that cached credentials must follow a change. */
  async announceCredentialChange(db: Queryable, change: CredentialChange): Promise<void> {
    await sql`SELECT pg_notify(${CREDENTIALS_CHANNEL}, ${JSON.stringify(change)})`.execute(db);
  }

  /** Counts a failed login for a throttle key inside a fixed window; returns failures in the window. */
  async recordLoginFailure(db: Queryable, key: string, windowMinutes: number): Promise<number> {
    const row = await sql<{ failures: number }>`
      INSERT INTO login_throttle (key, failures, window_started_at) VALUES (${key}, 1, now())
      ON CONFLICT (key) DO UPDATE SET
        failures = CASE WHEN login_throttle.window_started_at < now() - make_interval(mins => ${windowMinutes})
                        THEN 1 ELSE login_throttle.failures + 1 END,
        window_started_at = CASE WHEN login_throttle.window_started_at < now() - make_interval(mins => ${windowMinutes})
                        THEN now() ELSE login_throttle.window_started_at END
      RETURNING failures`.execute(db);
    return row.rows[0]?.failures ?? 1;
  }

  /** Seconds until the throttle on any of these keys lifts, or 0 when none is over the limit. */
  async loginBlockedFor(
    db: Queryable,
    keys: string[],
    maxFailures: number,
    windowMinutes: number,
  ): Promise<number> {
    const row = await db
      .selectFrom('login_throttle')
      .select(
        sql<number>`coalesce(max(ceil(extract(epoch from (window_started_at + make_interval(mins => ${windowMinutes}) - now())))), 0)::int`.as(
          'seconds',
        ),
      )
      .where('key', 'in', keys)
      .where('failures', '>=', maxFailures)
      .where(sql<boolean>`window_started_at > now() - make_interval(mins => ${windowMinutes})`)
      .executeTakeFirst();
    return Math.max(0, row?.seconds ?? 0);
  }

  async clearLoginFailures(db: Queryable, key: string): Promise<void> {
    await db.deleteFrom('login_throttle').where('key', '=', key).execute();
  }
}

function authUserOf(
  row: { credentialId: number; userId: number; role: AuthUser['role']; suspended_at: Date | null },
  kind: AuthUser['credential']['kind'],
): AuthUser {
  return {
    userId: row.userId,
    role: row.role,
    suspended: row.suspended_at !== null,
    credential: { kind, id: row.credentialId },
  };
}

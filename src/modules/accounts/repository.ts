import { sql } from 'kysely';
import type { KeyLimits } from '../../exchange/key-limits.js';
import type { AuthUser } from '../../platform/auth.js';
import type { NewUser, UserRow } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';
import type { KeyPermissions, Scope } from '../../platform/scopes.js';
import { CREDENTIALS_CHANNEL, type CredentialChange, type ResolvedCredential } from './credentials.js';

export interface ApiKeyRow {
  id: number;
  name: string;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  last_used_ip: string | null;
  revoked_at: Date | null;
  scopes: string[];
  allowed_cidrs: string[] | null;
  expires_at: Date | null;
  limits: KeyLimits | null;
}

/** What a key is made or changed with: its scopes, allow-list, expiry (null: none) and limits (null: none). */
export interface KeySettings {
  scopes: Scope[];
  allowedCidrs: string[] | null;
  expiresAt: Date | null;
  limits: KeyLimits | null;
}

const KEY_COLUMNS = [
  'k.id',
  'k.name',
  'k.prefix',
  'k.created_at',
  'k.last_used_at',
  'k.last_used_ip',
  'k.revoked_at',
  'k.scopes',
  'k.allowed_cidrs',
  'k.expires_at',
  'l.max_order_cents',
  'l.max_open_orders',
  'l.max_position_shares',
  'l.max_daily_loss_cents',
  'l.key_id as limited',
] as const;

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
    key: { userId: number; name: string; prefix: string; keyHash: string; settings: KeySettings },
  ): Promise<number> {
    const { settings } = key;
    const row = await db
      .insertInto('api_keys')
      .values({
        user_id: key.userId,
        name: key.name,
        prefix: key.prefix,
        key_hash: key.keyHash,
        scopes: settings.scopes,
        allowed_cidrs: settings.allowedCidrs,
        expires_at: settings.expiresAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await this.setKeyLimits(db, row.id, settings.limits);
    return row.id;
  }

  /** Changes a live key's settings; the hash of the key, or null when it is not a live key of this user. */
  async updateApiKey(
    db: Queryable,
    userId: number,
    keyId: number,
    change: { name?: string | undefined; settings: KeySettings },
  ): Promise<string | null> {
    const { settings } = change;
    const row = await db
      .updateTable('api_keys')
      .set({
        ...(change.name === undefined ? {} : { name: change.name }),
        scopes: settings.scopes,
        allowed_cidrs: settings.allowedCidrs,
        expires_at: settings.expiresAt,
      })
      .where('id', '=', keyId)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .returning('key_hash')
      .executeTakeFirst();
    if (!row) return null;
    await this.setKeyLimits(db, keyId, settings.limits);
    return row.key_hash;
  }

  /** Writes a key's limits (none: its row goes, and with it the order pipeline's lock of the key). */
  private async setKeyLimits(db: Queryable, keyId: number, limits: KeyLimits | null): Promise<void> {
    if (!limits) {
      await db.deleteFrom('api_key_limits').where('key_id', '=', keyId).execute();
      return;
    }
    const values = {
      max_order_cents: limits.maxOrderCents,
      max_open_orders: limits.maxOpenOrders,
      max_position_shares: limits.maxPositionShares,
      max_daily_loss_cents: limits.maxDailyLossCents,
    };
    await db
      .insertInto('api_key_limits')
      .values({ key_id: keyId, ...values })
      .onConflict((oc) => oc.column('key_id').doUpdateSet({ ...values, updated_at: new Date() }))
      .execute();
  }

  /** A user's keys that still work (not revoked, not expired), newest first; one of them with `keyId`. */
  async listApiKeys(db: Queryable, userId: number, keyId?: number): Promise<ApiKeyRow[]> {
    let query = db
      .selectFrom('api_keys as k')
      .leftJoin('api_key_limits as l', 'l.key_id', 'k.id')
      .select(KEY_COLUMNS)
      .where('k.user_id', '=', userId)
      .where('k.revoked_at', 'is', null)
      .where((eb) => eb.or([eb('k.expires_at', 'is', null), eb('k.expires_at', '>', new Date())]));
    if (keyId !== undefined) query = query.where('k.id', '=', keyId);
    const rows = await query.orderBy('k.id', 'desc').execute();
    return rows.map(
      ({ max_order_cents, max_open_orders, max_position_shares, max_daily_loss_cents, limited, ...row }) => ({
        ...row,
        limits:
          limited === null
            ? null
            : {
                maxOrderCents: numberOrNull(max_order_cents),
                maxOpenOrders: numberOrNull(max_open_orders),
                maxPositionShares: numberOrNull(max_position_shares),
                maxDailyLossCents: numberOrNull(max_daily_loss_cents),
              },
      }),
    );
  }

  async countActiveApiKeys(db: Queryable, userId: number): Promise<number> {
    const row = await db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', new Date())]))
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
          'u.email_verified_at',
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
      .select([
        'c.id as credentialId',
        'u.id as userId',
        'u.role',
        'u.suspended_at',
        'u.email_verified_at',
        'c.last_used_at',
        'c.expires_at',
      ])
      .where('c.key_hash', '=', tokenHash)
      .where('c.revoked_at', 'is', null)
      .where((eb) => eb.or([eb('c.expires_at', 'is', null), eb('c.expires_at', '>', new Date())]))
      .executeTakeFirst();
    if (!row) return null;
    const [key] = await this.listApiKeys(db, row.userId, row.credentialId);
    if (!key) return null;
    const user = authUserOf(row, kind);
    user.credential.permissions = permissionsOf(key);
    return { user, expiresAt: row.expires_at, lastUsedAt: row.last_used_at };
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
}

function authUserOf(
  row: {
    credentialId: number;
    userId: number;
    role: AuthUser['role'];
    suspended_at: Date | null;
    email_verified_at: Date | null;
  },
  kind: AuthUser['credential']['kind'],
): AuthUser {
  return {
    userId: row.userId,
    role: row.role,
    suspended: row.suspended_at !== null,
    emailVerified: row.email_verified_at !== null,
    credential: { kind, id: row.credentialId },
  };
}

function numberOrNull(value: number | string | null): number | null {
  return value === null ? null : Number(value);
}

function permissionsOf(key: ApiKeyRow): KeyPermissions {
  return { scopes: key.scopes as Scope[], allowedCidrs: key.allowed_cidrs, limits: key.limits };
}

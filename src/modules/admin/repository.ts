import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/types.js';
import type { AdminVia } from './tables.js';

export interface AdminActionEntry {
  actorId: number | null;
  via: AdminVia;
  action: string;
  summary: string;
  targetType: string | null;
  targetId: string | null;
  details: unknown;
  address: string | null;
}

export interface OperatorRow {
  id: number;
  email: string;
  username: string;
  role: 'user' | 'admin';
}

/** The largest `details` kept with an action, in characters of JSON; a larger one is cut and marked so. */
const MAX_DETAILS_CHARS = 4_000;

function detailsJson(details: unknown): string | null {
  if (details === undefined || details === null) return null;
  const text = JSON.stringify(details);
  return text.length <= MAX_DETAILS_CHARS
    ? text
    : JSON.stringify({ truncated: text.slice(0, MAX_DETAILS_CHARS) });
}

export class AdminRepository {
  async recordAction(db: Queryable, entry: AdminActionEntry): Promise<void> {
    await db
      .insertInto('admin_actions')
      .values({
        actor_id: entry.actorId,
        via: entry.via,
        action: entry.action.slice(0, 200),
        summary: entry.summary.slice(0, 300),
        target_type: entry.targetType?.slice(0, 60) ?? null,
        target_id: entry.targetId?.slice(0, 200) ?? null,
        details: detailsJson(entry.details),
        address: entry.address?.slice(0, 100) ?? null,
      })
      .execute();
  }

  /** Newest first, `limit + 1` rows from before `beforeId`, with the actor's username. */
  async actions(
    db: Queryable,
    limit: number,
    beforeId: number | null,
    target: { type: string; id?: string | undefined } | null,
  ) {
    let query = db
      .selectFrom('admin_actions as a')
      .leftJoin('users as u', 'u.id', 'a.actor_id')
      .select([
        'a.id',
        'a.actor_id',
        'u.username as actor_username',
        'a.via',
        'a.action',
        'a.summary',
        'a.target_type',
        'a.target_id',
        'a.details',
        'a.address',
        'a.created_at',
      ])
      .orderBy('a.id', 'desc')
      .limit(limit + 1);
    if (beforeId !== null) query = query.where('a.id', '<', beforeId);
    if (target) query = query.where('a.target_type', '=', target.type);
    if (target?.id !== undefined) query = query.where('a.target_id', '=', target.id);
    return query.execute();
  }

  /** The account named by id, email (any letter case) or username. */
  async findAccount(db: Queryable, ref: string): Promise<OperatorRow | undefined> {
    const byId = /^[1-9][0-9]{0,15}$/.test(ref) ? Number(ref) : null;
    return db
      .selectFrom('users')
      .select(['id', 'email', 'username', 'role'])
      .where((eb) =>
        eb.or([
          eb('email', '=', ref.trim().toLowerCase()),
          eb('username', '=', ref.trim()),
          ...(byId !== null ? [eb('id', '=', byId)] : []),
        ]),
      )
      .orderBy('id')
      .executeTakeFirst();
  }

  async operators(db: Queryable): Promise<OperatorRow[]> {
    return db
      .selectFrom('users')
      .select(['id', 'email', 'username', 'role'])
      .where('role', '=', 'admin')
      .orderBy('id')
      .execute();
  }

  async setRole(db: Queryable, userId: number, role: 'user' | 'admin'): Promise<boolean> {
    const result = await db
      .updateTable('users')
      .set({ role })
      .where('id', '=', userId)
      .where('role', '<>', role)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Serialises every change of who is admin (and the redemption of bootstrap tokens) behind one lock, so that two
   * revocations cannot leave no admin and two tokens cannot both make a first operator.
   */
  async lockRoles(db: Queryable): Promise<void> {
    await sql`LOCK TABLE admin_bootstrap_tokens IN EXCLUSIVE MODE`.execute(db);
  }

  async adminCount(db: Queryable): Promise<number> {
    const row = await db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('role', '=', 'admin')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insertBootstrapToken(db: Queryable, tokenHash: string): Promise<void> {
    await db
      .insertInto('admin_bootstrap_tokens')
      .values({ token_hash: tokenHash })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async bootstrapTokenExists(db: Queryable, tokenHash: string): Promise<boolean> {
    const row = await db
      .selectFrom('admin_bootstrap_tokens')
      .select('token_hash')
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row !== undefined;
  }

  async clearBootstrapTokens(db: Queryable): Promise<void> {
    await db.deleteFrom('admin_bootstrap_tokens').execute();
  }
}

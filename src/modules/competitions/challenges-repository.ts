import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/types.js';
import type { ChallengeStatus } from './tables.js';

export interface ChallengeRow {
  id: number;
  code: string;
  creator_id: number;
  creator_username: string;
  opponent_id: number | null;
  opponent_username: string | null;
  event_id: number | null;
  event_slug: string | null;
  event_title: string | null;
  event_status: string | null;
  starts_at: Date | null;
  ends_at: Date | null;
  stake_cents: number;
  status: ChallengeStatus;
  expires_at: Date;
  accepted_at: Date | null;
  settled_at: Date | null;
  creator_pnl_cents: number | null;
  opponent_pnl_cents: number | null;
  winner_id: number | null;
  created_at: Date;
}

export interface NewChallenge {
  code: string;
  creatorId: number;
  opponentId: number | null;
  eventId: number | null;
  startsAt: Date | null;
  endsAt: Date | null;
  stakeCents: number;
  expiresAt: Date;
}

export class ChallengesRepository {
  findEventBySlug(db: Queryable, slug: string) {
    return db
      .selectFrom('events')
      .select(['id', 'slug', 'status'])
      .where('slug', '=', slug)
      .where('status', '<>', 'draft')
      .executeTakeFirst();
  }

  findUserByUsername(db: Queryable, username: string) {
    return db
      .selectFrom('users')
      .select(['id', 'username'])
      .where('username', '=', username)
      .executeTakeFirst();
  }

  async codeTaken(db: Queryable, code: string): Promise<boolean> {
    const row = await db.selectFrom('challenges').select('id').where('code', '=', code).executeTakeFirst();
    return row !== undefined;
  }

  async insert(db: Queryable, challenge: NewChallenge): Promise<number> {
    const row = await db
      .insertInto('challenges')
      .values({
        code: challenge.code,
        creator_id: challenge.creatorId,
        opponent_id: challenge.opponentId,
        event_id: challenge.eventId,
        starts_at: challenge.startsAt,
        ends_at: challenge.endsAt,
        stake_cents: challenge.stakeCents,
        expires_at: challenge.expiresAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  private withNames(db: Queryable) {
    return db
      .selectFrom('challenges as c')
      .innerJoin('users as cu', 'cu.id', 'c.creator_id')
      .leftJoin('users as ou', 'ou.id', 'c.opponent_id')
      .leftJoin('events as e', 'e.id', 'c.event_id')
      .selectAll('c')
      .select([
        'cu.username as creator_username',
        'ou.username as opponent_username',
        'e.slug as event_slug',
        'e.title as event_title',
        'e.status as event_status',
      ]);
  }

  findById(db: Queryable, id: number): Promise<ChallengeRow | undefined> {
    return this.withNames(db).where('c.id', '=', id).executeTakeFirst();
  }

  findByCode(db: Queryable, code: string): Promise<ChallengeRow | undefined> {
    return this.withNames(db).where('c.code', '=', code).executeTakeFirst();
  }

  /** Locks the challenge row (not its joined rows) for the rest of the transaction. */
  lockByCode(db: Queryable, code: string): Promise<ChallengeRow | undefined> {
    return this.withNames(db).where('c.code', '=', code).forUpdate('c').executeTakeFirst();
  }

  listForUser(
    db: Queryable,
    userId: number,
    filter: { status: ChallengeStatus | null; beforeId: number | null; limit: number },
  ): Promise<ChallengeRow[]> {
    let query = this.withNames(db)
      .where((eb) => eb.or([eb('c.creator_id', '=', userId), eb('c.opponent_id', '=', userId)]))
      .orderBy('c.id', 'desc')
      .limit(filter.limit + 1);
    if (filter.status !== null) query = query.where('c.status', '=', filter.status);
    if (filter.beforeId !== null) query = query.where('c.id', '<', filter.beforeId);
    return query.execute();
  }

  async markAccepted(db: Queryable, id: number, opponentId: number): Promise<void> {
    await db
      .updateTable('challenges')
      .set({ status: 'accepted', opponent_id: opponentId, accepted_at: sql<Date>`now()` })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Claims open challenges that can no longer be accepted: past their expiry, their market no longer open,
   * or their window over. Other instances skip the rows claimed here.
   */
  claimUnacceptable(db: Queryable, limit: number): Promise<ChallengeRow[]> {
    return this.withNames(db)
      .where('c.status', '=', 'open')
      .where((eb) =>
        eb.or([
          eb('c.expires_at', '<=', sql<Date>`now()`),
          eb('c.ends_at', '<=', sql<Date>`now()`),
          eb.and([eb('c.event_id', 'is not', null), eb('e.status', '<>', 'open')]),
        ]),
      )
      .orderBy('c.id')
      .limit(limit)
      .forUpdate('c')
      .skipLocked()
      .execute();
  }

  /** Claims accepted challenges that are over: their market settled, or their window ended. */
  claimFinished(db: Queryable, limit: number): Promise<ChallengeRow[]> {
    return this.withNames(db)
      .where('c.status', '=', 'accepted')
      .where((eb) => eb.or([eb('c.ends_at', '<=', sql<Date>`now()`), eb('e.status', '=', 'settled')]))
      .orderBy('c.id')
      .limit(limit)
      .forUpdate('c')
      .skipLocked()
      .execute();
  }

  async markExpired(db: Queryable, id: number): Promise<void> {
    await db.updateTable('challenges').set({ status: 'expired' }).where('id', '=', id).execute();
  }

  async markSettled(
    db: Queryable,
    id: number,
    result: { creatorPnlCents: number; opponentPnlCents: number; winnerId: number | null },
  ): Promise<void> {
    await db
      .updateTable('challenges')
      .set({
        status: 'settled',
        settled_at: sql<Date>`now()`,
        creator_pnl_cents: result.creatorPnlCents,
        opponent_pnl_cents: result.opponentPnlCents,
        winner_id: result.winnerId,
      })
      .where('id', '=', id)
      .execute();
  }
}

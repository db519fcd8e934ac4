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

export interface TournamentRow {
  id: number;
  slug: string;
  title: string;
  description: string;
  starts_at: Date;
  ends_at: Date;
  entry_closes_at: Date;
  prizes: number[];
  finished_at: Date | null;
  created_at: Date;
}

export interface NewTournament {
  slug: string;
  title: string;
  description: string;
  startsAt: Date;
  endsAt: Date;
  entryClosesAt: Date;
  prizes: number[];
  createdBy: number;
  eventIds: number[];
}

const TOURNAMENT_COLUMNS = [
  'id',
  'slug',
  'title',
  'description',
  'starts_at',
  'ends_at',
  'entry_closes_at',
  'prizes',
  'finished_at',
  'created_at',
] as const;

/** What an edit changes in a tournament; absent fields stay. */
export interface TournamentChanges {
  title?: string;
  description?: string;
  startsAt?: Date;
  endsAt?: Date;
  entryClosesAt?: Date;
  prizes?: number[];
  eventIds?: number[];
}

export class TournamentsRepository {
  findEventsBySlugs(db: Queryable, slugs: string[]) {
    return db.selectFrom('events').select(['id', 'slug']).where('slug', 'in', slugs).execute();
  }

  async slugTaken(db: Queryable, slug: string): Promise<boolean> {
    const row = await db.selectFrom('tournaments').select('id').where('slug', '=', slug).executeTakeFirst();
    return row !== undefined;
  }

  async insert(db: Queryable, tournament: NewTournament): Promise<number> {
    const { id } = await db
      .insertInto('tournaments')
      .values({
        slug: tournament.slug,
        title: tournament.title,
        description: tournament.description,
        starts_at: tournament.startsAt,
        ends_at: tournament.endsAt,
        entry_closes_at: tournament.entryClosesAt,
        prizes: JSON.stringify(tournament.prizes),
        created_by: tournament.createdBy,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('tournament_events')
      .values(tournament.eventIds.map((eventId) => ({ tournament_id: id, event_id: eventId })))
      .execute();
    return id;
  }

  async update(db: Queryable, id: number, fields: TournamentChanges): Promise<void> {
    const { eventIds, prizes, startsAt, endsAt, entryClosesAt, ...text } = fields;
    const columns = {
      ...text,
      ...(startsAt ? { starts_at: startsAt } : {}),
      ...(endsAt ? { ends_at: endsAt } : {}),
      ...(entryClosesAt ? { entry_closes_at: entryClosesAt } : {}),
      ...(prizes ? { prizes: JSON.stringify(prizes) } : {}),
    };
    if (Object.keys(columns).length > 0) {
      await db.updateTable('tournaments').set(columns).where('id', '=', id).execute();
    }
    if (!eventIds) return;
    await db.deleteFrom('tournament_events').where('tournament_id', '=', id).execute();
    await db
      .insertInto('tournament_events')
      .values(eventIds.map((eventId) => ({ tournament_id: id, event_id: eventId })))
      .execute();
  }

  /** Running and upcoming tournaments (`live`) or finished ones, soonest start first / latest end first. */
  list(
    db: Queryable,
    filter: { finished: boolean; offset: number; limit: number },
  ): Promise<TournamentRow[]> {
    let query = db
      .selectFrom('tournaments')
      .select(TOURNAMENT_COLUMNS)
      .limit(filter.limit)
      .offset(filter.offset);
    query = filter.finished
      ? query.where('finished_at', 'is not', null).orderBy('ends_at', 'desc').orderBy('id', 'desc')
      : query
          .where('finished_at', 'is', null)
          .where('ends_at', '>', sql<Date>`now()`)
          .orderBy('starts_at')
          .orderBy('id');
    return query.execute();
  }

  findBySlug(db: Queryable, slug: string): Promise<TournamentRow | undefined> {
    return db
      .selectFrom('tournaments')
      .select(TOURNAMENT_COLUMNS)
      .where('slug', '=', slug)
      .executeTakeFirst();
  }

  lockBySlug(db: Queryable, slug: string): Promise<TournamentRow | undefined> {
    return db
      .selectFrom('tournaments')
      .select(TOURNAMENT_COLUMNS)
      .where('slug', '=', slug)
      .forNoKeyUpdate()
      .executeTakeFirst();
  }

  eventsOf(db: Queryable, tournamentIds: number[]) {
    if (tournamentIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('tournament_events as te')
      .innerJoin('events as e', 'e.id', 'te.event_id')
      .select(['te.tournament_id', 'e.id', 'e.slug', 'e.title', 'e.status'])
      .where('te.tournament_id', 'in', tournamentIds)
      .orderBy('e.id')
      .execute();
  }

  async participantCounts(db: Queryable, tournamentIds: number[]): Promise<Map<number, number>> {
    if (tournamentIds.length === 0) return new Map();
    const rows = await db
      .selectFrom('tournament_entries')
      .select(['tournament_id', sql<number>`count(*)::int`.as('n')])
      .where('tournament_id', 'in', tournamentIds)
      .groupBy('tournament_id')
      .execute();
    return new Map(rows.map((row) => [row.tournament_id, Number(row.n)]));
  }

  entries(db: Queryable, tournamentId: number) {
    return db
      .selectFrom('tournament_entries as te')
      .innerJoin('users as u', 'u.id', 'te.user_id')
      .select(['te.user_id', 'te.joined_at', 'u.username'])
      .where('te.tournament_id', '=', tournamentId)
      .execute();
  }

  async hasJoined(db: Queryable, tournamentId: number, userId: number): Promise<boolean> {
    const row = await db
      .selectFrom('tournament_entries')
      .select('user_id')
      .where('tournament_id', '=', tournamentId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async insertEntry(db: Queryable, tournamentId: number, userId: number): Promise<void> {
    await db
      .insertInto('tournament_entries')
      .values({ tournament_id: tournamentId, user_id: userId })
      .execute();
  }

  results(db: Queryable, tournamentId: number) {
    return db
      .selectFrom('tournament_results as r')
      .innerJoin('users as u', 'u.id', 'r.user_id')
      .innerJoin('tournament_entries as te', (join) =>
        join.onRef('te.tournament_id', '=', 'r.tournament_id').onRef('te.user_id', '=', 'r.user_id'),
      )
      .select([
        'r.user_id',
        'u.username',
        'te.joined_at',
        'r.rank',
        'r.score_bps',
        'r.pnl_cents',
        'r.cost_cents',
        'r.trades',
        'r.prize_cents',
      ])
      .where('r.tournament_id', '=', tournamentId)
      .orderBy(sql`r.rank IS NULL`)
      .orderBy('r.rank')
      .orderBy('te.joined_at')
      .orderBy('r.user_id')
      .execute();
  }

  /** Claims one tournament whose window is over and whose prizes are not yet paid. */
  claimFinished(db: Queryable): Promise<TournamentRow | undefined> {
    return db
      .selectFrom('tournaments')
      .select(TOURNAMENT_COLUMNS)
      .where('finished_at', 'is', null)
      .where('ends_at', '<=', sql<Date>`now()`)
      .orderBy('ends_at')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
  }

  async insertResults(
    db: Queryable,
    tournamentId: number,
    results: {
      userId: number;
      rank: number | null;
      scoreBps: number;
      pnlCents: number;
      costCents: number;
      trades: number;
      prizeCents: number;
    }[],
  ): Promise<void> {
    if (results.length === 0) return;
    await db
      .insertInto('tournament_results')
      .values(
        results.map((r) => ({
          tournament_id: tournamentId,
          user_id: r.userId,
          rank: r.rank,
          score_bps: r.scoreBps,
          pnl_cents: r.pnlCents,
          cost_cents: r.costCents,
          trades: r.trades,
          prize_cents: r.prizeCents,
        })),
      )
      .execute();
  }

  async markFinished(db: Queryable, id: number): Promise<void> {
    await db.updateTable('tournaments').set({ finished_at: sql<Date>`now()` }).where('id', '=', id).execute();
  }
}

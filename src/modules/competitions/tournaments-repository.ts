import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/types.js';

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

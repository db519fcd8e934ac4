import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { isUniqueViolation, type Queryable, type Tx } from '../../platform/db/types.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { decodeCursor, encodeCursor, type PageOf } from '../../platform/http.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { NotificationsService } from '../notifications/service.js';
import type { People } from '../social/people.js';
import type { PerformanceRepository } from '../social/performance-repository.js';
import { plainText } from '../social/text.js';
import {
  AlreadyJoinedError,
  TournamentClosedError,
  TournamentEndedError,
  TournamentSlugTakenError,
  TournamentStartedError,
} from './errors.js';
import { prizeFor, rankEntrants, type Standing } from './scoring.js';
import type { TournamentRow, TournamentsRepository } from './tournaments-repository.js';

/** How many standings a tournament's page shows. */
export const LEADERBOARD_SIZE = 100;

export type TournamentStatus = 'upcoming' | 'active' | 'scoring' | 'finished';

export interface CreateTournamentInput {
  slug: string;
  title: string;
  description?: string | undefined;
  startsAt: string;
  endsAt: string;
  entryClosesAt?: string | undefined;
  eventSlugs: string[];
  prizes: number[];
}

export type UpdateTournamentInput = Partial<Omit<CreateTournamentInput, 'slug'>>;

export interface TournamentView {
  slug: string;
  title: string;
  description: string;
  status: TournamentStatus;
  startsAt: string;
  endsAt: string;
  entryClosesAt: string;
  prizes: number[];
  prizePoolCents: number;
  events: { slug: string; title: string }[];
  participants: number;
}

export interface LeaderboardEntry {
  rank: number | null;
  userId: string;
  username: string;
  trades: number;
  costCents: number;
  pnlCents: number;
  returnBps: number;
  prizeCents: number;
}

/**
 * Tournaments: a window, a set of markets and prizes. Entrants are ranked by the return on their trades in
 * those markets during the window; when the window ends a job writes the final standings and pays the prizes
 * from house `bonus`, exactly once.
 */
export class TournamentsService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly tournaments: TournamentsRepository,
    private readonly performance: PerformanceRepository,
    private readonly ledger: LedgerRepository,
    private readonly notifications: NotificationsService,
    private readonly people: People,
  ) {}

  async create(adminId: number, input: CreateTournamentInput): Promise<TournamentView> {
    const startsAt = new Date(input.startsAt);
    const endsAt = new Date(input.endsAt);
    const entryClosesAt = input.entryClosesAt === undefined ? endsAt : new Date(input.entryClosesAt);
    checkWindow(startsAt, endsAt, entryClosesAt);
    const title = plainText(input.title, 'title', 140);
    const description = input.description === undefined ? '' : input.description.trim();
    try {
      await this.db.transaction().execute(async (trx) => {
        if (await this.tournaments.slugTaken(trx, input.slug)) throw new TournamentSlugTakenError(input.slug);
        const eventIds = await this.eventIdsOf(trx, input.eventSlugs);
        await this.tournaments.insert(trx, {
          slug: input.slug,
          title,
          description,
          startsAt,
          endsAt,
          entryClosesAt,
          prizes: input.prizes,
          createdBy: adminId,
          eventIds,
        });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new TournamentSlugTakenError(input.slug);
      throw error;
    }
    return this.viewOf(input.slug);
  }

  /**
   * An operator's edit. Until the start anything may change; once started only the title, the description, the
   * end (still in the future) and the entry deadline may, and prizes may only rise or be added, so nobody who
   * joined loses what was promised; once the window is over nothing may (the job is scoring or has paid it).
   */
  async update(slug: string, input: UpdateTournamentInput): Promise<TournamentView> {
    await this.db.transaction().execute(async (trx) => {
      const row = await this.tournaments.lockBySlug(trx, slug);
      if (!row) throw new NotFoundError('Tournament');
      const status = statusOf(row);
      if (status === 'scoring' || status === 'finished') throw new TournamentEndedError();
      if (status === 'active') {
        const markets = input.eventSlugs ? await this.tournaments.eventsOf(trx, [row.id]) : [];
        refuseOnceStarted(
          row,
          markets.map((market) => market.slug),
          input,
        );
      }
      const endsAt = input.endsAt === undefined ? row.ends_at : new Date(input.endsAt);
      const startsAt = input.startsAt === undefined ? row.starts_at : new Date(input.startsAt);
      const entryClosesAt =
        input.entryClosesAt !== undefined
          ? new Date(input.entryClosesAt)
          : row.entry_closes_at.getTime() === row.ends_at.getTime()
            ? endsAt
            : row.entry_closes_at;
      checkWindow(startsAt, endsAt, entryClosesAt);
      await this.tournaments.update(trx, row.id, {
        ...(input.title !== undefined ? { title: plainText(input.title, 'title', 140) } : {}),
        ...(input.description !== undefined ? { description: input.description.trim() } : {}),
        startsAt,
        endsAt,
        entryClosesAt,
        ...(input.prizes ? { prizes: input.prizes } : {}),
        ...(input.eventSlugs ? { eventIds: await this.eventIdsOf(trx, input.eventSlugs) } : {}),
      });
    });
    return this.viewOf(slug);
  }

  private async viewOf(slug: string): Promise<TournamentView> {
    const row = await this.tournaments.findBySlug(this.db, slug);
    if (!row) throw new NotFoundError('Tournament');
    const [view] = await this.views(this.db, [row]);
    return view as TournamentView;
  }

  /** The ids of the named markets, all of which must exist (400 naming the unknown ones). */
  private async eventIdsOf(trx: Tx, eventSlugs: string[]): Promise<number[]> {
    const slugs = [...new Set(eventSlugs)];
    const events = await this.tournaments.findEventsBySlugs(trx, slugs);
    const missing = slugs.filter((slug) => !events.some((event) => event.slug === slug));
    if (missing.length > 0) {
      throw new ValidationError(`Unknown markets: ${missing.join(', ')}`, [
        { field: 'body.eventSlugs', message: `has unknown slugs ${missing.join(', ')}` },
      ]);
    }
    return events.map((event) => event.id);
  }

  async list(filter: {
    status: 'live' | 'finished';
    limit: number;
    cursor?: string | undefined;
  }): Promise<PageOf<TournamentView>> {
    const cursor = decodeCursor(filter.cursor, 1);
    const offset = cursor ? Math.max(0, Math.trunc(Number(cursor[0])) || 0) : 0;
    const rows = await this.tournaments.list(this.db, {
      finished: filter.status === 'finished',
      offset,
      limit: filter.limit + 1,
    });
    const page = rows.slice(0, filter.limit);
    return {
      data: await this.views(this.db, page),
      nextCursor: rows.length > filter.limit ? encodeCursor([offset + filter.limit]) : null,
    };
  }

  async detail(slug: string, viewerId: number | null) {
    const row = await this.tournaments.findBySlug(this.db, slug);
    if (!row) throw new NotFoundError('Tournament');
    const [view] = await this.views(this.db, [row]);
    const leaderboard = await this.leaderboard(this.db, row);
    return {
      ...(view as TournamentView),
      scoring:
        'Return on the trades made in these markets during the window: profit (sales − purchases − fees + ' +
        'value of the shares still held, at payout once resolved, else at the last traded price) ÷ cost of ' +
        'the purchases. Ties: higher profit, then earlier entry. Entrants without a trade are unranked.',
      joined: viewerId === null ? false : await this.tournaments.hasJoined(this.db, row.id, viewerId),
      leaderboard: leaderboard.slice(0, LEADERBOARD_SIZE),
    };
  }

  async join(userId: number, slug: string): Promise<{ slug: string; joined: true; joinedAt: string }> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const row = await this.tournaments.lockBySlug(trx, slug);
        if (!row) throw new NotFoundError('Tournament');
        if (row.finished_at !== null || row.entry_closes_at.getTime() <= Date.now()) {
          throw new TournamentClosedError();
        }
        if (await this.tournaments.hasJoined(trx, row.id, userId)) throw new AlreadyJoinedError();
        await this.tournaments.insertEntry(trx, row.id, userId);
        return { slug, joined: true as const, joinedAt: new Date().toISOString() };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AlreadyJoinedError();
      throw error;
    }
  }

  /** Job: writes the final standings of one ended tournament and pays its prizes; returns 1, or 0 if none. */
  async finishDue(): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const row = await this.tournaments.claimFinished(trx);
      if (!row) return 0;
      const standings = await this.standings(trx, row, row.ends_at);
      await this.tournaments.insertResults(
        trx,
        row.id,
        standings.map((s) => ({
          userId: s.userId,
          rank: s.rank,
          scoreBps: s.scoreBps,
          pnlCents: s.pnlCents,
          costCents: s.costCents,
          trades: s.trades,
          prizeCents: prizeFor(s.rank, row.prizes),
        })),
      );
      for (const standing of standings) await this.payPrize(trx, row, standing);
      await this.tournaments.markFinished(trx, row.id);
      return 1;
    });
  }

  private async payPrize(trx: Tx, tournament: TournamentRow, standing: Standing): Promise<void> {
    const prize = prizeFor(standing.rank, tournament.prizes);
    if (prize <= 0) return;
    await this.ledger.post(trx, {
      kind: 'tournament_prize',
      memo: `Tournament ${tournament.slug}: place ${standing.rank}`,
      userId: standing.userId,
      ref: { type: 'tournament', id: tournament.id },
      postings: [
        { account: { kind: 'bonus' }, amount: -prize },
        { account: { kind: 'cash', userId: standing.userId }, amount: prize },
      ],
    });
    if (!(await this.people.accepts(trx, standing.userId, 'competitions'))) return;
    await this.notifications.notify(trx, {
      userId: standing.userId,
      type: 'tournament.prize',
      title: `You placed #${standing.rank} in ${tournament.title}`,
      body: `Your prize of ${(prize / 100).toFixed(2)} credits has been added to your cash`,
      data: { tournamentSlug: tournament.slug, rank: standing.rank, prizeCents: prize },
    });
  }

  /** Live standings while the tournament runs; the stored final standings once it is finished. */
  private async leaderboard(db: Queryable, row: TournamentRow): Promise<LeaderboardEntry[]> {
    if (row.finished_at !== null) {
      const results = await this.tournaments.results(db, row.id);
      return results.map((r) => ({
        rank: r.rank,
        userId: String(r.user_id),
        username: r.username,
        trades: Number(r.trades),
        costCents: Number(r.cost_cents),
        pnlCents: Number(r.pnl_cents),
        returnBps: Number(r.score_bps),
        prizeCents: Number(r.prize_cents),
      }));
    }
    const until = new Date(Math.min(Date.now(), row.ends_at.getTime()));
    const standings = await this.standings(db, row, until);
    const names = new Map((await this.tournaments.entries(db, row.id)).map((e) => [e.user_id, e.username]));
    return standings.map((s) => ({
      rank: s.rank,
      userId: String(s.userId),
      username: names.get(s.userId) ?? '',
      trades: s.trades,
      costCents: s.costCents,
      pnlCents: s.pnlCents,
      returnBps: s.scoreBps,
      prizeCents: prizeFor(s.rank, row.prizes),
    }));
  }

  private async standings(db: Queryable, row: TournamentRow, until: Date): Promise<Standing[]> {
    const entries = await this.tournaments.entries(db, row.id);
    const events = await this.tournaments.eventsOf(db, [row.id]);
    const performance =
      until > row.starts_at
        ? await this.performance.byUser(db, {
            from: row.starts_at,
            to: until,
            userIds: entries.map((e) => e.user_id),
            eventIds: events.map((e) => e.id),
          })
        : [];
    const byUser = new Map(performance.map((p) => [p.user_id, p]));
    return rankEntrants(
      entries.map((entry) => {
        const p = byUser.get(entry.user_id);
        return {
          userId: entry.user_id,
          joinedAt: entry.joined_at,
          trades: Number(p?.trades ?? 0),
          costCents: Number(p?.cost_cents ?? 0),
          pnlCents: Number(p?.pnl_cents ?? 0),
        };
      }),
    );
  }

  private async views(db: Queryable, rows: TournamentRow[]): Promise<TournamentView[]> {
    const ids = rows.map((row) => row.id);
    const [events, counts] = await Promise.all([
      this.tournaments.eventsOf(db, ids),
      this.tournaments.participantCounts(db, ids),
    ]);
    return rows.map((row) => ({
      slug: row.slug,
      title: row.title,
      description: row.description,
      status: statusOf(row),
      startsAt: row.starts_at.toISOString(),
      endsAt: row.ends_at.toISOString(),
      entryClosesAt: row.entry_closes_at.toISOString(),
      prizes: row.prizes,
      prizePoolCents: row.prizes.reduce((sum, prize) => sum + prize, 0),
      events: events.filter((e) => e.tournament_id === row.id).map((e) => ({ slug: e.slug, title: e.title })),
      participants: counts.get(row.id) ?? 0,
    }));
  }
}

/** The window's rules: the end after the start and in the future, entries closing by the end. */
function checkWindow(startsAt: Date, endsAt: Date, entryClosesAt: Date): void {
  if (endsAt <= startsAt || endsAt.getTime() <= Date.now()) {
    throw new ValidationError('endsAt must be after startsAt and in the future', [
      { field: 'body.endsAt', message: 'is not after startsAt and now' },
    ]);
  }
  if (entryClosesAt > endsAt) {
    throw new ValidationError('Entries must close by the end', [
      { field: 'body.entryClosesAt', message: 'is after endsAt' },
    ]);
  }
}

/** Once started, the start and the markets stay, and no prize may fall or disappear. */
function refuseOnceStarted(row: TournamentRow, marketSlugs: string[], input: UpdateTournamentInput): void {
  const fixed: string[] = [];
  if (input.startsAt !== undefined && new Date(input.startsAt).getTime() !== row.starts_at.getTime()) {
    fixed.push('startsAt');
  }
  const markets = input.eventSlugs ? new Set(input.eventSlugs) : null;
  if (markets && (markets.size !== marketSlugs.length || marketSlugs.some((slug) => !markets.has(slug)))) {
    fixed.push('eventSlugs');
  }
  const prizes = input.prizes;
  if (
    prizes &&
    (prizes.length < row.prizes.length || row.prizes.some((prize, i) => (prizes[i] ?? 0) < prize))
  ) {
    fixed.push('prizes (lower or fewer)');
  }
  if (fixed.length > 0) throw new TournamentStartedError(fixed);
}

function statusOf(row: TournamentRow): TournamentStatus {
  if (row.finished_at !== null) return 'finished';
  const now = Date.now();
  if (now < row.starts_at.getTime()) return 'upcoming';
  if (now < row.ends_at.getTime()) return 'active';
  return 'scoring';
}

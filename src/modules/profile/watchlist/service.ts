import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.js';
import type { Queryable } from '../../../platform/db/types.js';
import { ConflictError, NotFoundError, ValidationError } from '../../../platform/errors.js';
import { decodeCursor, iso, type PageOf, toPage } from '../../../platform/http.js';
import type { EventRef, ProfileEventsRepository } from '../events-repository.js';
import type { WatchlistRepository, WatchlistRow } from './repository.js';
import { WATCHLIST_MAX_ITEMS } from './schemas.js';

export interface WatchlistItemView {
  eventId: string;
  eventSlug: string;
  title: string;
  status: string;
  closesAt: string;
  addedAt: string;
}

/** Markets a user bookmarks. Adding twice is harmless: the second add returns the existing entry. */
export class WatchlistService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly watchlist: WatchlistRepository,
    private readonly events: ProfileEventsRepository,
  ) {}

  list(
    userId: number,
    query: { limit: number; cursor?: string | undefined },
  ): Promise<PageOf<WatchlistItemView>> {
    const cursor = decodeCursor(query.cursor, 1);
    return this.watchlist
      .list(this.db, userId, { limit: query.limit, beforeId: cursor ? Number(cursor[0]) : null })
      .then((rows) => toPage(rows, query.limit, toItem, (row) => [row.id]));
  }

  async add(
    userId: number,
    input: { eventSlug?: string | undefined; eventId?: string | undefined },
  ): Promise<{ created: boolean; item: WatchlistItemView }> {
    if ((input.eventSlug === undefined) === (input.eventId === undefined)) {
      const message = 'name exactly one of eventSlug or eventId';
      throw new ValidationError(`The body must ${message}`, [
        { field: 'body.eventSlug', message },
        { field: 'body.eventId', message },
      ]);
    }
    return this.db.transaction().execute(async (trx) => {
      const event =
        input.eventId !== undefined
          ? await this.events.findById(trx, Number(input.eventId))
          : await this.events.findBySlug(trx, input.eventSlug ?? '');
      if (!event) throw new NotFoundError('Event');
      await this.watchlist.lockOwner(trx, userId);
      const existing = await this.watchlist.find(trx, userId, event.id);
      if (existing) return { created: false, item: toItem(existing) };
      if ((await this.watchlist.count(trx, userId)) >= WATCHLIST_MAX_ITEMS) {
        throw new ConflictError('WATCHLIST_FULL', `A watchlist holds at most ${WATCHLIST_MAX_ITEMS} markets`);
      }
      const created = await this.watchlist.add(trx, userId, event.id);
      const row = await this.watchlist.find(trx, userId, event.id);
      if (!row) throw new Error(`watchlist entry for event ${event.id} vanished`);
      return { created, item: toItem(row) };
    });
  }

  async remove(userId: number, eventRef: string): Promise<void> {
    const event = await this.resolve(this.db, eventRef);
    if (!event) throw new NotFoundError('Event');
    await this.watchlist.remove(this.db, userId, event.id);
  }

  /** Digits name an event id, anything else a slug. */
  private resolve(db: Queryable, ref: string): Promise<EventRef | undefined> {
    return /^[1-9][0-9]{0,15}$/.test(ref)
      ? this.events.findById(db, Number(ref))
      : this.events.findBySlug(db, ref);
  }
}

function toItem(row: WatchlistRow): WatchlistItemView {
  return {
    eventId: String(row.event_id),
    eventSlug: row.slug,
    title: row.title,
    status: row.status,
    closesAt: iso(row.closes_at),
    addedAt: iso(row.created_at),
  };
}

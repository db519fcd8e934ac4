import type { Queryable } from '../../../platform/db/types.js';

/** Bookmarked markets, one row per user and event. */
export class WatchlistRepository {
  private select(db: Queryable, userId: number) {
    return db
      .selectFrom('watchlist_items as w')
      .innerJoin('events as e', 'e.id', 'w.event_id')
      .select(['w.id', 'w.event_id', 'e.slug', 'e.title', 'e.status', 'e.closes_at', 'w.created_at'])
      .where('w.user_id', '=', userId);
  }

  find(db: Queryable, userId: number, eventId: number) {
    return this.select(db, userId).where('w.event_id', '=', eventId).executeTakeFirst();
  }

  /** Adds the event; false when it was already on the list (a concurrent duplicate included). */
  async add(db: Queryable, userId: number, eventId: number): Promise<boolean> {
    const row = await db
      .insertInto('watchlist_items')
      .values({ user_id: userId, event_id: eventId })
      .onConflict((oc) => oc.columns(['user_id', 'event_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  list(db: Queryable, userId: number, page: { limit: number; beforeId: number | null }) {
    let query = this.select(db, userId)
      .orderBy('w.id', 'desc')
      .limit(page.limit + 1);
    if (page.beforeId !== null) query = query.where('w.id', '<', page.beforeId);
    return query.execute();
  }

  async count(db: Queryable, userId: number): Promise<number> {
    const row = await db
      .selectFrom('watchlist_items')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async remove(db: Queryable, userId: number, eventId: number): Promise<void> {
    await db
      .deleteFrom('watchlist_items')
      .where('user_id', '=', userId)
      .where('event_id', '=', eventId)
      .execute();
  }

  /** Serialises one user's additions so the size limit holds under concurrent requests. */
  async lockOwner(db: Queryable, userId: number): Promise<void> {
    await db.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().executeTakeFirst();
  }
}

export type WatchlistRow = NonNullable<Awaited<ReturnType<WatchlistRepository['find']>>>;

import type { Queryable } from '../../platform/db/types.js';

export interface EventRef {
  id: number;
  slug: string;
  title: string;
}

/** Finds the markets that notes and watchlist entries point at, by id or by slug. */
export class ProfileEventsRepository {
  findById(db: Queryable, id: number): Promise<EventRef | undefined> {
    return db.selectFrom('events').select(['id', 'slug', 'title']).where('id', '=', id).executeTakeFirst();
  }

  findBySlug(db: Queryable, slug: string): Promise<EventRef | undefined> {
    return db
      .selectFrom('events')
      .select(['id', 'slug', 'title'])
      .where('slug', '=', slug)
      .executeTakeFirst();
  }
}

import type { Queryable } from '../../platform/db/types.js';

/** The events the integrations hang off; read-only here, owned by the markets area. */
export class EventRefsRepository {
  /** Drafts are not public yet, so public reads treat them as missing. */
  publicBySlug(db: Queryable, slug: string) {
    return db
      .selectFrom('events')
      .select(['id', 'slug', 'title'])
      .where('slug', '=', slug)
      .where('status', '!=', 'draft')
      .executeTakeFirst();
  }

  byId(db: Queryable, id: number) {
    return db.selectFrom('events').select(['id', 'slug', 'title']).where('id', '=', id).executeTakeFirst();
  }
}

export type EventRef = NonNullable<Awaited<ReturnType<EventRefsRepository['byId']>>>;

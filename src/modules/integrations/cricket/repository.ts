import type { Queryable } from '../../../platform/db/types.js';

export class CricketRepository {
  async link(db: Queryable, eventId: number, matchId: string): Promise<void> {
    await db
      .insertInto('cricket_match_links')
      .values({ event_id: eventId, match_id: matchId })
      .onConflict((oc) => oc.column('event_id').doUpdateSet({ match_id: matchId }))
      .execute();
  }

  async unlink(db: Queryable, eventId: number): Promise<boolean> {
    const result = await db
      .deleteFrom('cricket_match_links')
      .where('event_id', '=', eventId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Public events linked to any of these provider matches. */
  linkedEvents(db: Queryable, matchIds: string[]) {
    if (matchIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('cricket_match_links as l')
      .innerJoin('events as e', 'e.id', 'l.event_id')
      .select(['l.match_id', 'e.id', 'e.slug', 'e.title'])
      .where('l.match_id', 'in', matchIds)
      .where('e.status', '!=', 'draft')
      .orderBy('e.id')
      .execute();
  }
}

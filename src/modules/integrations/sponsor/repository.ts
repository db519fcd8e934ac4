import { sql } from 'kysely';
import type { Queryable } from '../../../platform/db/types.js';

export interface SponsorFields {
  name: string;
  logoUrl: string;
  linkUrl: string;
  disclosure: string;
}

export class SponsorRepository {
  find(db: Queryable, eventId: number) {
    return db.selectFrom('event_sponsors').selectAll().where('event_id', '=', eventId).executeTakeFirst();
  }

  save(db: Queryable, eventId: number, sponsor: SponsorFields) {
    const values = {
      name: sponsor.name,
      logo_url: sponsor.logoUrl,
      link_url: sponsor.linkUrl,
      disclosure: sponsor.disclosure,
    };
    return db
      .insertInto('event_sponsors')
      .values({ event_id: eventId, ...values })
      .onConflict((oc) => oc.column('event_id').doUpdateSet({ ...values, updated_at: sql<Date>`now()` }))
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async remove(db: Queryable, eventId: number): Promise<boolean> {
    const result = await db.deleteFrom('event_sponsors').where('event_id', '=', eventId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}

export type SponsorRow = Awaited<ReturnType<SponsorRepository['save']>>;

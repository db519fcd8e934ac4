import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/types.js';
import type { SuggestionStatus } from './tables.js';

export interface NewSuggestion {
  userId: number;
  title: string;
  description: string;
  category: string;
  options: string[];
  resolutionSource: string | null;
  closesAt: Date | null;
}

/** Market suggestions and the draft events made from approved ones. */
export class SuggestionsRepository {
  insert(db: Queryable, suggestion: NewSuggestion) {
    return db
      .insertInto('market_suggestions')
      .values({
        user_id: suggestion.userId,
        title: suggestion.title,
        description: suggestion.description,
        category: suggestion.category,
        options: JSON.stringify(suggestion.options),
        resolution_source: suggestion.resolutionSource,
        closes_at: suggestion.closesAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async lockSuggester(db: Queryable, userId: number): Promise<void> {
    await db.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute();
  }

  async countPending(db: Queryable, userId: number): Promise<number> {
    const row = await db
      .selectFrom('market_suggestions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  list(
    db: Queryable,
    filter: {
      userId: number | null;
      status: SuggestionStatus | null;
      beforeId: number | null;
      limit: number;
    },
  ) {
    let query = db
      .selectFrom('market_suggestions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .leftJoin('events as e', 'e.id', 's.event_id')
      .selectAll('s')
      .select(['u.username', 'e.slug as event_slug', 'e.status as event_status'])
      .orderBy('s.id', 'desc')
      .limit(filter.limit + 1);
    if (filter.userId !== null) query = query.where('s.user_id', '=', filter.userId);
    if (filter.status !== null) query = query.where('s.status', '=', filter.status);
    if (filter.beforeId !== null) query = query.where('s.id', '<', filter.beforeId);
    return query.execute();
  }

  find(db: Queryable, id: number) {
    return db
      .selectFrom('market_suggestions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .leftJoin('events as e', 'e.id', 's.event_id')
      .selectAll('s')
      .select(['u.username', 'e.slug as event_slug', 'e.status as event_status'])
      .where('s.id', '=', id)
      .executeTakeFirst();
  }

  lock(db: Queryable, id: number) {
    return db
      .selectFrom('market_suggestions')
      .selectAll()
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
  }

  async markApproved(db: Queryable, id: number, review: { eventId: number; reviewedBy: number }) {
    await db
      .updateTable('market_suggestions')
      .set({
        status: 'approved',
        event_id: review.eventId,
        reviewed_by: review.reviewedBy,
        reviewed_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .execute();
  }

  async markRejected(db: Queryable, id: number, review: { reason: string; reviewedBy: number }) {
    await db
      .updateTable('market_suggestions')
      .set({
        status: 'rejected',
        rejection_reason: review.reason,
        reviewed_by: review.reviewedBy,
        reviewed_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .execute();
  }
}

import type { Queryable } from '../../../platform/db/types.js';

export interface NoteFilter {
  eventId?: number | undefined;
  tradeId?: number | undefined;
}

/** Private notes; every query is scoped to the owner, so another user's note is simply not found. */
export class NotesRepository {
  async insert(
    db: Queryable,
    note: { userId: number; eventId: number; tradeId: number | null; text: string },
  ) {
    const { id } = await db
      .insertInto('trade_notes')
      .values({ user_id: note.userId, event_id: note.eventId, trade_id: note.tradeId, text: note.text })
      .returning('id')
      .executeTakeFirstOrThrow();
    const row = await this.find(db, note.userId, id);
    if (!row) throw new Error(`note ${id} vanished after insert`);
    return row;
  }

  private select(db: Queryable, userId: number) {
    return db
      .selectFrom('trade_notes as n')
      .innerJoin('events as e', 'e.id', 'n.event_id')
      .select(['n.id', 'n.text', 'n.trade_id', 'n.event_id', 'e.slug', 'e.title', 'n.created_at'])
      .where('n.user_id', '=', userId);
  }

  find(db: Queryable, userId: number, id: number) {
    return this.select(db, userId).where('n.id', '=', id).executeTakeFirst();
  }

  list(db: Queryable, userId: number, filter: NoteFilter, page: { limit: number; beforeId: number | null }) {
    let query = this.select(db, userId)
      .orderBy('n.id', 'desc')
      .limit(page.limit + 1);
    if (filter.eventId !== undefined) query = query.where('n.event_id', '=', filter.eventId);
    if (filter.tradeId !== undefined) query = query.where('n.trade_id', '=', filter.tradeId);
    if (page.beforeId !== null) query = query.where('n.id', '<', page.beforeId);
    return query.execute();
  }

  async remove(db: Queryable, userId: number, id: number): Promise<boolean> {
    const result = await db
      .deleteFrom('trade_notes')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** The caller's own trade with its event, or undefined when there is no such trade of theirs. */
  findOwnTrade(db: Queryable, userId: number, tradeId: number) {
    return db
      .selectFrom('trades')
      .select(['id', 'event_id'])
      .where('id', '=', tradeId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }
}

export type NoteRow = NonNullable<Awaited<ReturnType<NotesRepository['find']>>>;

import { type Selectable, sql } from 'kysely';
import { numberArray, textArray } from '../../platform/db/arrays.js';
import type { DB } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';

export interface NewNotification {
  userId: number;
  type: string;
  title: string;
  body: string;
  data?: Record<string, unknown>;
}

export class NotificationsRepository {
  /**
   * Writes feed items and returns their rows. Only what the database adds (ids, times) comes back: the rest is what
   * was given, so a batch's titles, bodies and data are not sent back and parsed again.
   */
  async insert(db: Queryable, notifications: NewNotification[]): Promise<Selectable<DB['notifications']>[]> {
    if (notifications.length === 0) return [];
    // One array per column, not a list of rows: the same text whatever the count, so it is prepared once.
    const column = <K extends keyof NewNotification>(key: K) => notifications.map((n) => n[key]);
    const { rows } = await sql<{ id: number; created_at: Date }>`
      INSERT INTO notifications (user_id, type, title, body, data)
      SELECT v.user_id, v.type, v.title, v.body, v.data
      FROM unnest(${numberArray(column('userId'))}::bigint[], ${textArray(column('type'))}::text[],
        ${textArray(column('title'))}::text[], ${textArray(column('body'))}::text[],
        ${textArray(notifications.map((n) => JSON.stringify(n.data ?? {})))}::jsonb[])
        WITH ORDINALITY AS v(user_id, type, title, body, data, ord)
      ORDER BY v.ord
      RETURNING id, created_at`.execute(db);
    // The rows come back in the order they were inserted, which is the order given (as for the trades of a batch).
    return rows.map((row, index) => {
      const given = notifications[index] as NewNotification;
      return {
        id: row.id,
        user_id: given.userId,
        type: given.type,
        title: given.title,
        body: given.body,
        data: given.data ?? {},
        read_at: null,
        created_at: row.created_at,
      };
    });
  }

  list(
    db: Queryable,
    userId: number,
    options: { limit: number; beforeId: number | null; unreadOnly: boolean },
  ) {
    let query = db
      .selectFrom('notifications')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .limit(options.limit + 1);
    if (options.beforeId !== null) query = query.where('id', '<', options.beforeId);
    if (options.unreadOnly) query = query.where('read_at', 'is', null);
    return query.execute();
  }

  async unreadCount(db: Queryable, userId: number): Promise<number> {
    const row = await db
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('read_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async markRead(db: Queryable, userId: number, id: number): Promise<'marked' | 'already' | 'missing'> {
    const row = await db
      .selectFrom('notifications')
      .select(['id', 'read_at'])
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row) return 'missing';
    if (row.read_at) return 'already';
    await db.updateTable('notifications').set({ read_at: sql<Date>`now()` }).where('id', '=', id).execute();
    return 'marked';
  }

  async markAllRead(db: Queryable, userId: number): Promise<number> {
    const result = await db
      .updateTable('notifications')
      .set({ read_at: sql<Date>`now()` })
      .where('user_id', '=', userId)
      .where('read_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}

import { type Selectable, sql } from 'kysely';
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
  async insert(db: Queryable, notifications: NewNotification[]) {
    if (notifications.length === 0) return [];
    // One array per column, not a list of rows: the same text whatever the count, so it is prepared once.
    const column = <K extends keyof NewNotification>(key: K) => notifications.map((n) => n[key]);
    const { rows } = await sql<Selectable<DB['notifications']>>`
      INSERT INTO notifications (user_id, type, title, body, data)
      SELECT * FROM unnest(${column('userId')}::bigint[], ${column('type')}::text[], ${column('title')}::text[],
        ${column('body')}::text[], ${notifications.map((n) => JSON.stringify(n.data ?? {}))}::jsonb[])
      RETURNING *`.execute(db);
    return rows;
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

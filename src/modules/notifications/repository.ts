import { type Selectable, sql } from 'kysely';
import { numberArray, textArray } from '../../platform/db/arrays.js';
import type { DB } from '../../platform/db/schema.js';
import { takenIds } from '../../platform/db/sequences.js';
import type { Queryable } from '../../platform/db/types.js';

export interface NewNotification {
  userId: number;
  type: string;
  title: string;
  body: string;
  data?: Record<string, unknown>;
}

/** Ids taken for feed items still to be written, and the time they will carry (their transaction's). */
export interface ReservedIds {
  ids: number[];
  at: Date;
}

/** A feed item as stored. */
export type NotificationRow = Selectable<DB['notifications']>;

export class NotificationsRepository {
  /**
   * Takes `count` ids for feed items, in the transaction that will write them, with the time they will carry
   * (`now()`, as the column's default would give). Ids not used are a gap in the sequence, as a rolled-back
   * transaction leaves.
   */
  async reserve(db: Queryable, count: number): Promise<ReservedIds> {
    const { rows } = await sql<{ ids: (number | string)[] | null; at: Date }>`
      SELECT ${takenIds('notifications', count)} AS ids, now() AS at`.execute(db);
    const row = rows[0] as { ids: (number | string)[] | null; at: Date };
    return { ids: (row.ids ?? []).map(Number), at: row.at };
  }

  /** The rows feed items will have once written with reserved ids: the first `notifications.length` of them. */
  rowsOf(notifications: NewNotification[], reserved: ReservedIds): NotificationRow[] {
    if (notifications.length > reserved.ids.length)
      throw new Error(`${notifications.length} feed items for ${reserved.ids.length} reserved ids`);
    return notifications.map((given, index) => ({
      id: reserved.ids[index] as number,
      user_id: given.userId,
      type: given.type,
      title: given.title,
      body: given.body,
      data: given.data ?? {},
      read_at: null,
      created_at: reserved.at,
    }));
  }

  /**
   * Writes feed items whose rows `rowsOf` made, in the transaction that reserved their ids (whose `now()` they
   * carry); nothing comes back.
   */
  async insertRows(db: Queryable, rows: NotificationRow[]): Promise<void> {
    if (rows.length === 0) return;
    const column = <K extends keyof NotificationRow>(key: K) => rows.map((row) => row[key]);
    // The data as one JSON array, its elements taken by position: as an array of texts, each item's JSON would
    // have every `"` escaped.
    await sql`
      INSERT INTO notifications (id, user_id, type, title, body, data, created_at)
      OVERRIDING SYSTEM VALUE
      SELECT v.id, v.user_id, v.type, v.title, v.body, ${JSON.stringify(column('data'))}::jsonb -> (v.ord::int - 1), now()
      FROM unnest(${numberArray(column('id'))}::bigint[], ${numberArray(column('user_id'))}::bigint[],
        ${textArray(column('type'))}::text[], ${textArray(column('title'))}::text[], ${textArray(column('body'))}::text[])
        WITH ORDINALITY AS v(id, user_id, type, title, body, ord)`.execute(db);
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

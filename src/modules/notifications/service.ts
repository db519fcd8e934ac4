import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { sideBySide } from '../../platform/db/side-by-side.js';
import type { Queryable } from '../../platform/db/types.js';
import { NotFoundError } from '../../platform/errors.js';
import { decodeCursor, toPage } from '../../platform/http.js';
import type { NewNotification, NotificationRow, NotificationsRepository, ReservedIds } from './repository.js';

export type { NotificationRow } from './repository.js';

/** Called in the same transaction as each notification, e.g. to queue the matching webhook. */
export type NotificationListener = (trx: Queryable, rows: NotificationRow[]) => Promise<void>;

/**
 * The feed of user-facing events. Other areas call `notify` inside their own transaction, so a notification
 * exists exactly when the change it describes was committed.
 */
export class NotificationsService {
  private readonly listeners: NotificationListener[] = [];

  constructor(
    private readonly db: Kysely<DB>,
    private readonly notifications: NotificationsRepository,
  ) {}

  onNotified(listener: NotificationListener): void {
    this.listeners.push(listener);
  }

  /**
   * Writes feed items and tells the listeners, whose statements go out with the write. The items' ids are those the
   * caller reserved side by side with its other reads (`reserve`), or are reserved here first.
   */
  async notify(
    trx: Queryable,
    items: NewNotification | NewNotification[],
    reserved?: ReservedIds,
  ): Promise<void> {
    const list = Array.isArray(items) ? items : [items];
    const rows = this.notifications.rowsOf(list, reserved ?? (await this.reserve(trx, list.length)));
    await sideBySide([
      this.notifications.insertRows(trx, rows),
      ...this.listeners.map((listener) => listener(trx, rows)),
    ]);
  }

  /** Ids for `count` feed items this transaction may write (see `notify`). */
  reserve(trx: Queryable, count: number): Promise<ReservedIds> {
    return this.notifications.reserve(trx, count);
  }

  async feed(userId: number, options: { limit: number; cursor?: string | undefined; unreadOnly: boolean }) {
    const cursor = decodeCursor(options.cursor, 1);
    const rows = await this.notifications.list(this.db, userId, {
      limit: options.limit,
      beforeId: cursor ? Number(cursor[0]) : null,
      unreadOnly: options.unreadOnly,
    });
    const page = toPage(rows, options.limit, toNotification, (row) => [row.id]);
    return { ...page, unreadCount: await this.notifications.unreadCount(this.db, userId) };
  }

  async markRead(userId: number, request: { id?: string | undefined; markAllRead?: boolean | undefined }) {
    let marked = 0;
    if (request.markAllRead) {
      marked = await this.notifications.markAllRead(this.db, userId);
    } else if (request.id !== undefined) {
      const outcome = await this.notifications.markRead(this.db, userId, Number(request.id));
      if (outcome === 'missing') throw new NotFoundError('Notification');
      marked = outcome === 'marked' ? 1 : 0;
    }
    return { marked, unreadCount: await this.notifications.unreadCount(this.db, userId) };
  }
}

export function toNotification(row: NotificationRow) {
  return {
    id: String(row.id),
    type: row.type,
    title: row.title,
    body: row.body,
    data: row.data,
    read: row.read_at !== null,
    createdAt: row.created_at.toISOString(),
  };
}

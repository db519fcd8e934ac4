import { sql, type Updateable } from 'kysely';
import type { Queryable } from '../../../platform/db/types.js';
import type { UserPreferencesTable } from '../tables.js';

export type PreferencesChanges = Omit<
  Updateable<UserPreferencesTable>,
  'user_id' | 'updated_at' | 'avatar_key'
>;

export type NotificationCategory = 'trades' | 'social' | 'competitions' | 'marketing' | 'newSignIn';

const CATEGORY_COLUMN = {
  trades: 'notify_trades',
  social: 'notify_social',
  competitions: 'notify_competitions',
  marketing: 'notify_marketing',
  newSignIn: 'notify_new_sign_in',
} as const;

/** A user's preferences row; a user without one has the column defaults. */
export class PreferencesRepository {
  find(db: Queryable, userId: number) {
    return db.selectFrom('user_preferences').selectAll().where('user_id', '=', userId).executeTakeFirst();
  }

  /** Applies the changes (creating the row on first use) and returns the whole row. */
  upsert(db: Queryable, userId: number, changes: PreferencesChanges) {
    return db
      .insertInto('user_preferences')
      .values({ user_id: userId, ...changes })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ ...changes, updated_at: sql<Date>`now()` }))
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Sets the avatar key and returns the key it replaced. */
  async replaceAvatar(db: Queryable, userId: number, key: string): Promise<string | null> {
    const previous = await db
      .selectFrom('user_preferences')
      .select('avatar_key')
      .where('user_id', '=', userId)
      .forUpdate()
      .executeTakeFirst();
    await db
      .insertInto('user_preferences')
      .values({ user_id: userId, avatar_key: key })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ avatar_key: key, updated_at: sql<Date>`now()` }))
      .execute();
    return previous?.avatar_key ?? null;
  }

  /** Display name, bio and avatar of several users at once (public profiles, follower lists). */
  cards(db: Queryable, userIds: number[]) {
    if (userIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('user_preferences')
      .select(['user_id', 'display_name', 'bio', 'avatar_key'])
      .where('user_id', '=', sql<number>`ANY(${userIds}::bigint[])`)
      .execute();
  }

  /** Whether the user accepts feed notifications of a category (on unless they turned it off). */
  async accepts(db: Queryable, userId: number, category: NotificationCategory): Promise<boolean> {
    const row = await db
      .selectFrom('user_preferences')
      .select([
        'notify_trades',
        'notify_social',
        'notify_competitions',
        'notify_marketing',
        'notify_new_sign_in',
      ])
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row) return category !== 'marketing';
    return row[CATEGORY_COLUMN[category]];
  }
}

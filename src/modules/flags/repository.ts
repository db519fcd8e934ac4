import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/types.js';

export class FlagsRepository {
  list(db: Queryable) {
    return db.selectFrom('feature_flags').selectAll().orderBy('key').execute();
  }

  set(db: Queryable, key: string, enabled: boolean, userId: number) {
    return db
      .updateTable('feature_flags')
      .set({ enabled, updated_by: userId, updated_at: sql<Date>`now()` })
      .where('key', '=', key)
      .returningAll()
      .executeTakeFirst();
  }
}

export type FlagRow = Awaited<ReturnType<FlagsRepository['list']>>[number];

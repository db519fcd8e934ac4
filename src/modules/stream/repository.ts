import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';

export class StreamRepository {
  /** The status of each of these events (drafts included: the caller decides what is public). */
  eventStatuses(db: Kysely<DB>, eventIds: number[]) {
    return db.selectFrom('events').select(['id', 'status']).where('id', 'in', eventIds).execute();
  }

  /** Queues a notification; PostgreSQL delivers it to every listener when the transaction commits. */
  async notify(db: Queryable, channel: string, payload: string): Promise<void> {
    await sql`SELECT pg_notify(${channel}, ${payload})`.execute(db);
  }

  /** Queues several notifications on one channel in one statement. */
  async notifyMany(db: Queryable, channel: string, payloads: string[]): Promise<void> {
    if (payloads.length === 0) return;
    if (payloads.length === 1) return this.notify(db, channel, payloads[0] as string);
    // One array parameter, not a list: the same text whatever the count, so it is prepared once.
    await sql`SELECT pg_notify(${channel}, v.payload) FROM unnest(${payloads}::text[]) AS v(payload)`.execute(
      db,
    );
  }
}

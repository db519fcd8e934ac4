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

  /**
   * Queues several notifications on one channel in one statement, in order. Payloads without a line break (JSON as
   * `JSON.stringify` writes it never has one) go as one text joined by line breaks and split by PostgreSQL: as an
   * array's elements, every `"` of a JSON payload would be escaped, a copy of each payload made to be sent.
   */
  async notifyMany(db: Queryable, channel: string, payloads: string[]): Promise<void> {
    if (payloads.length === 0) return;
    if (payloads.length === 1) return this.notify(db, channel, payloads[0] as string);
    // One parameter, not a list: the same text whatever the count, so it is prepared once.
    if (!payloads.some((payload) => payload.includes('\n'))) {
      await sql`SELECT pg_notify(${channel}, v.payload)
        FROM unnest(string_to_array(${payloads.join('\n')}::text, E'\\n')) AS v(payload)`.execute(db);
      return;
    }
    await sql`SELECT pg_notify(${channel}, v.payload) FROM unnest(${payloads}::text[]) AS v(payload)`.execute(
      db,
    );
  }
}

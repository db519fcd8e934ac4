import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';

export class StreamRepository {
  /** Queues a notification; PostgreSQL delivers it to every listener when the transaction commits. */
  async notify(db: Queryable, channel: string, payload: string): Promise<void> {
    await sql`SELECT pg_notify(${channel}, ${payload})`.execute(db);
  }

  /** Queues several notifications on one channel in one statement. */
  async notifyMany(db: Queryable, channel: string, payloads: string[]): Promise<void> {
    if (payloads.length === 0) return;
    if (payloads.length === 1) return this.notify(db, channel, payloads[0] as string);
    await sql`SELECT pg_notify(${channel}, v.payload)
      FROM (VALUES ${sql.join(payloads.map((payload) => sql`(${payload}::text)`))}) AS v(payload)`.execute(
      db,
    );
  }

  /** The option's book version, house state and resting levels, read in one consistent snapshot. */
  bookSnapshot(db: Kysely<DB>, optionId: number) {
    return db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const option = await trx
          .selectFrom('options')
          .select([
            'id',
            'book_version',
            'liquidity_b',
            'amm_offset',
            'amm_yes_shares',
            'amm_no_shares',
            'last_yes_price',
          ])
          .where('id', '=', optionId)
          .executeTakeFirst();
        if (!option) return null;
        const levels = await trx
          .selectFrom('orders')
          .select([
            'book_side',
            'book_price',
            sql<number>`sum(quantity - filled_quantity)::bigint`.as('quantity'),
            sql<number>`count(*)::int`.as('orders'),
          ])
          .where('option_id', '=', optionId)
          .where('status', 'in', ['open', 'partially_filled'])
          .groupBy(['book_side', 'book_price'])
          .execute();
        return { option, levels };
      });
  }
}

import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/types.js';
import type { TradingStatusText } from './tables.js';

/** The trading status operators set, for the exchange and per market. */
export class TradingStatusRepository {
  exchange(db: Queryable) {
    return db
      .selectFrom('exchange_trading_status')
      .select(['status', 'message', 'updated_at'])
      .executeTakeFirstOrThrow();
  }

  /** Every market held stricter than the exchange, with its slug. */
  events(db: Queryable) {
    return db
      .selectFrom('event_trading_status as s')
      .innerJoin('events as e', 'e.id', 's.event_id')
      .select(['s.event_id', 'e.slug', 's.status', 's.message', 's.updated_at'])
      .orderBy('s.event_id')
      .execute();
  }

  setExchange(db: Queryable, status: TradingStatusText, message: string | null, userId: number | null) {
    return db
      .updateTable('exchange_trading_status')
      .set({ status, message, updated_by: userId, updated_at: sql<Date>`now()` })
      .returning(['status', 'message', 'updated_at'])
      .executeTakeFirstOrThrow();
  }

  async setEvent(
    db: Queryable,
    eventId: number,
    status: Exclude<TradingStatusText, 'trading'>,
    message: string | null,
    userId: number | null,
  ): Promise<void> {
    await db
      .insertInto('event_trading_status')
      .values({ event_id: eventId, status, message, updated_by: userId })
      .onConflict((oc) =>
        oc.column('event_id').doUpdateSet({ status, message, updated_by: userId, updated_at: sql`now()` }),
      )
      .execute();
  }

  async clearEvent(db: Queryable, eventId: number): Promise<void> {
    await db.deleteFrom('event_trading_status').where('event_id', '=', eventId).execute();
  }

  async eventExists(db: Queryable, eventId: number): Promise<boolean> {
    return (
      (await db.selectFrom('events').select('id').where('id', '=', eventId).executeTakeFirst()) !== undefined
    );
  }

  /** The event an option belongs to (options never move), or undefined. */
  async eventOfOption(db: Queryable, optionId: number): Promise<number | undefined> {
    const row = await db
      .selectFrom('options')
      .select('event_id')
      .where('id', '=', optionId)
      .executeTakeFirst();
    return row?.event_id;
  }

  /** The event of a slug (slugs never change), or undefined. */
  async eventOfSlug(db: Queryable, slug: string): Promise<number | undefined> {
    const row = await db.selectFrom('events').select('id').where('slug', '=', slug).executeTakeFirst();
    return row?.id;
  }

  /** A trader's order: its option's event, and what an amend of it could change. */
  userOrder(db: Queryable, userId: number, orderId: number) {
    return db
      .selectFrom('orders as o')
      .innerJoin('options as op', 'op.id', 'o.option_id')
      .select(['op.event_id', 'o.post_only', 'o.quantity', 'o.filled_quantity'])
      .where('o.id', '=', orderId)
      .where('o.user_id', '=', userId)
      .executeTakeFirst();
  }
}

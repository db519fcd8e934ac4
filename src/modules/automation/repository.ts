import { type Selectable, sql } from 'kysely';
import type { OptionsTable, PositionsTable } from '../../platform/db/schema.js';
import type { Queryable, Tx } from '../../platform/db/types.js';
import { conversionYesPriceOf } from '../trading/reads-repository.js';

export interface MarketNames {
  option_id: number;
  option_label: string;
  event_id: number;
  event_slug: string;
  event_title: string;
}

export type ProtectedPosition = Selectable<PositionsTable> & { last_yes_price: number };

/** Reads for trading notifications and protections. */
export class AutomationRepository {
  /** Names of the options' markets, for feed items in human words. */
  marketNames(db: Queryable, optionIds: number[]): Promise<MarketNames[]> {
    if (optionIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('options as o')
      .innerJoin('events as e', 'e.id', 'o.event_id')
      .select([
        'o.id as option_id',
        'o.label as option_label',
        'e.id as event_id',
        'e.slug as event_slug',
        'e.title as event_title',
      ])
      .where('o.id', 'in', optionIds)
      .execute();
  }

  /**
   * Of these users, those who turned trade notifications off (the same rule as the preferences area: on unless
   * turned off), read in one query for a whole order's worth of users.
   */
  async tradeNotificationsOff(db: Queryable, userIds: number[]): Promise<Set<number>> {
    if (userIds.length === 0) return new Set();
    const rows = await db
      .selectFrom('user_preferences')
      .select('user_id')
      .where('user_id', '=', sql<number>`ANY(${userIds}::bigint[])`)
      .where('notify_trades', '=', false)
      .execute();
    return new Set(rows.map((r) => r.user_id));
  }

  findPosition(db: Queryable, positionId: number) {
    return db
      .selectFrom('positions')
      .select(['id', 'user_id', 'option_id'])
      .where('id', '=', positionId)
      .executeTakeFirst();
  }

  /** The option and its event's state under the option's row lock (the lock every change to its book takes). */
  lockOption(trx: Tx, optionId: number) {
    return trx
      .selectFrom('options as o')
      .innerJoin('events as e', 'e.id', 'o.event_id')
      .selectAll('o')
      .select(['e.status as event_status', 'e.closes_at'])
      .where('o.id', '=', optionId)
      .forUpdate('o')
      .executeTakeFirst() as Promise<
      (Selectable<OptionsTable> & { event_status: string; closes_at: Date }) | undefined
    >;
  }

  lockPosition(trx: Tx, positionId: number) {
    return trx
      .selectFrom('positions')
      .selectAll()
      .where('id', '=', positionId)
      .forUpdate()
      .executeTakeFirst();
  }

  async setProtections(
    trx: Tx,
    positionId: number,
    values: { stop_loss_bps?: number | null; take_profit_bps?: number | null },
  ): Promise<void> {
    if (Object.keys(values).length === 0) return;
    await trx
      .updateTable('positions')
      .set({ ...values, updated_at: new Date() })
      .where('id', '=', positionId)
      .execute();
  }

  /** A position with what its view needs (market names and prices). */
  positionView(db: Queryable, positionId: number) {
    return db
      .selectFrom('positions as p')
      .innerJoin('options as op', 'op.id', 'p.option_id')
      .innerJoin('events as e', 'e.id', 'op.event_id')
      .selectAll('p')
      .select([
        'e.slug as event_slug',
        'e.title as event_title',
        'op.label as option_label',
        'op.last_yes_price',
        'op.resolution',
        'op.yes_payout_cents',
        conversionYesPriceOf('op').as('conversion_yes_price'),
      ])
      .where('p.id', '=', positionId)
      .executeTakeFirstOrThrow();
  }

  /**
   * Positions of the option whose protection fired at its last traded price (stop-loss: side price at or below;
   * take-profit: at or above), plus emptied positions still carrying one, locked. Served by the partial index
   * on protected positions, so an option without protections costs one index probe.
   */
  async firedProtections(trx: Tx, optionId: number): Promise<ProtectedPosition[]> {
    const result = await sql<ProtectedPosition>`
      SELECT p.*, o.last_yes_price
      FROM positions p
      JOIN options o ON o.id = p.option_id
      WHERE p.option_id = ${optionId}
        AND (p.stop_loss_bps IS NOT NULL OR p.take_profit_bps IS NOT NULL)
        AND o.last_yes_price IS NOT NULL
        AND (
          p.quantity = 0
          OR p.stop_loss_bps >= 100 * (CASE WHEN p.side = 'YES' THEN o.last_yes_price ELSE 100 - o.last_yes_price END)
          OR p.take_profit_bps <= 100 * (CASE WHEN p.side = 'YES' THEN o.last_yes_price ELSE 100 - o.last_yes_price END)
        )
      ORDER BY p.id
      FOR UPDATE OF p`.execute(trx);
    return result.rows;
  }

  async clearProtections(trx: Tx, positionIds: number[]): Promise<void> {
    if (positionIds.length === 0) return;
    await trx
      .updateTable('positions')
      .set({ stop_loss_bps: null, take_profit_bps: null, updated_at: new Date() })
      .where('id', 'in', positionIds)
      .execute();
  }

  /**
   * Runs `work` inside a savepoint: if it throws, everything it wrote is undone and the caller's transaction
   * carries on (a protective sell that cannot fill must not undo the order that triggered it).
   */
  async inSavepoint<T>(trx: Tx, name: string, work: () => Promise<T>): Promise<T> {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad savepoint name ${name}`);
    await sql.raw(`SAVEPOINT ${name}`).execute(trx);
    try {
      const result = await work();
      await sql.raw(`RELEASE SAVEPOINT ${name}`).execute(trx);
      return result;
    } catch (error) {
      await sql.raw(`ROLLBACK TO SAVEPOINT ${name}`).execute(trx);
      throw error;
    }
  }
}

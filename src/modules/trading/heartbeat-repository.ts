import { type Selectable, sql } from 'kysely';
import type { HeartbeatsTable } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';

export type HeartbeatRow = Selectable<HeartbeatsTable> & { db_now: Date };

/** The dead man's switches, one per credential. Times come from the database's clock, shared by every instance. */
export class HeartbeatRepository {
  /** Arms the credential's switch, or pushes its expiry on: `timeoutMs` from now. */
  async beat(db: Queryable, credential: string, userId: number, timeoutMs: number): Promise<HeartbeatRow> {
    const { rows } = await sql<HeartbeatRow>`
      INSERT INTO heartbeats (credential, user_id, timeout_ms, armed_at, last_beat_at, expires_at)
      VALUES (${credential}, ${userId}, ${timeoutMs}, now(), now(), now() + ${timeoutMs} * interval '1 millisecond')
      ON CONFLICT (credential) DO UPDATE SET timeout_ms = excluded.timeout_ms, last_beat_at = now(),
        expires_at = excluded.expires_at,
        armed_at = CASE WHEN heartbeats.expires_at IS NULL THEN now() ELSE heartbeats.armed_at END
      RETURNING *, now() AS db_now`.execute(db);
    return rows[0] as HeartbeatRow;
  }

  async find(db: Queryable, credential: string): Promise<HeartbeatRow | undefined> {
    const { rows } = await sql<HeartbeatRow>`
      SELECT *, now() AS db_now FROM heartbeats WHERE credential = ${credential}`.execute(db);
    return rows[0];
  }

  /** Disarms the switch without cancelling anything. */
  async disarm(db: Queryable, credential: string): Promise<HeartbeatRow | undefined> {
    const { rows } = await sql<HeartbeatRow>`
      UPDATE heartbeats SET expires_at = NULL WHERE credential = ${credential}
      RETURNING *, now() AS db_now`.execute(db);
    return rows[0];
  }

  /** Armed switches whose time is up, oldest first. */
  due(db: Queryable, limit: number) {
    return db
      .selectFrom('heartbeats')
      .select(['credential', 'user_id', 'expires_at'])
      .where('expires_at', '<=', sql<Date>`now()`)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
  }

  /**
   * Records that a switch went off with the orders this instance cancelled, unless a heartbeat re-armed it since.
   * When another instance recorded it first, adds the orders this one cancelled besides (a cancel is only ever
   * counted by the instance that made it). False when the switch was re-armed meanwhile.
   */
  async fired(db: Queryable, credential: string, cancelledOrders: number): Promise<boolean> {
    const first = await db
      .updateTable('heartbeats')
      .set({ expires_at: null, fired_at: sql<Date>`now()`, cancelled_orders: cancelledOrders })
      .where('credential', '=', credential)
      .where('expires_at', '<=', sql<Date>`now()`)
      .executeTakeFirst();
    if (Number(first.numUpdatedRows) > 0) return true;
    const after = await db
      .updateTable('heartbeats')
      .set({ cancelled_orders: sql<number>`cancelled_orders + ${cancelledOrders}` })
      .where('credential', '=', credential)
      .where('expires_at', 'is', null)
      .where('fired_at', 'is not', null)
      .executeTakeFirst();
    return Number(after.numUpdatedRows) > 0;
  }
}

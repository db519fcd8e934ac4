import { sql } from 'kysely';
import type { Queryable } from '../../platform/db/types.js';

/** The SQL of an event's later life: the events due to close or settle, its options' outcomes, its holders. */
export class LifecycleRepository {
  /** Keeps the chance each option shows as its event is settled (by option id, in basis points). */
  async setClosingChances(db: Queryable, chances: Map<number, { probabilityBps: number }>): Promise<void> {
    if (chances.size === 0) return;
    const ids = [...chances.keys()];
    await sql`
      UPDATE options o SET closing_probability_bps = v.bps
      FROM unnest(${ids}::bigint[], ${ids.map((id) => chances.get(id)?.probabilityBps)}::int[]) AS v(id, bps)
      WHERE o.id = v.id`.execute(db);
  }

  /** An option's outcome, and what a YES share of it will pay at settlement. */
  async setOptionResolution(
    db: Queryable,
    optionId: number,
    resolution: 'YES' | 'NO' | 'VOID',
    yesPayoutCents: number,
  ): Promise<void> {
    await db
      .updateTable('options')
      .set({ resolution, yes_payout_cents: yesPayoutCents })
      .where('id', '=', optionId)
      .execute();
  }

  /** Resolved events whose dispute window has passed with no dispute pending, claimed for settlement. */
  claimSettleable(db: Queryable, windowHours: number, limit: number) {
    return db
      .selectFrom('events as e')
      .select(['e.id'])
      .where('e.status', '=', 'resolved')
      .where('e.resolved_at', '<=', new Date(Date.now() - windowHours * 3_600_000))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('disputes as d')
              .select('d.id')
              .whereRef('d.event_id', '=', 'e.id')
              .where('d.status', '=', 'pending'),
          ),
        ),
      )
      .orderBy('e.resolved_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
  }

  claimDueClosures(db: Queryable, limit: number) {
    return db
      .selectFrom('events')
      .select('id')
      .where('status', '=', 'open')
      .where('closes_at', '<=', new Date())
      .orderBy('closes_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
  }

  /** Everyone holding shares in an event's options. */
  holdersOf(db: Queryable, eventId: number) {
    return db
      .selectFrom('positions as p')
      .innerJoin('options as o', 'o.id', 'p.option_id')
      .select(['p.user_id', 'p.option_id', 'p.side', 'p.quantity'])
      .where('o.event_id', '=', eventId)
      .where('p.quantity', '>', 0)
      .execute();
  }
}

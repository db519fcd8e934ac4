import type { Selectable } from 'kysely';
import type { DisputesTable } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';

export type DisputeRow = Selectable<DisputesTable>;

export class DisputesRepository {
  insert(
    db: Queryable,
    dispute: { eventId: number; userId: number; reason: string; evidenceUrl: string | null },
  ): Promise<DisputeRow | undefined> {
    return db
      .insertInto('disputes')
      .values({
        event_id: dispute.eventId,
        user_id: dispute.userId,
        reason: dispute.reason,
        evidence_url: dispute.evidenceUrl,
      })
      .onConflict((oc) => oc.columns(['event_id', 'user_id']).doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  list(db: Queryable, status: DisputeRow['status'] | null, beforeId: number | null, limit: number) {
    let query = db
      .selectFrom('disputes as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .innerJoin('users as u', 'u.id', 'd.user_id')
      .selectAll('d')
      .select(['e.slug as event_slug', 'u.username'])
      .orderBy('d.id', 'desc')
      .limit(limit + 1);
    if (status) query = query.where('d.status', '=', status);
    if (beforeId !== null) query = query.where('d.id', '<', beforeId);
    return query.execute();
  }

  lock(db: Queryable, id: number): Promise<DisputeRow | undefined> {
    return db.selectFrom('disputes').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  }

  decide(
    db: Queryable,
    id: number,
    decision: { status: 'upheld' | 'rejected'; note: string | null; decidedBy: number | null },
  ): Promise<DisputeRow> {
    return db
      .updateTable('disputes')
      .set({
        status: decision.status,
        decision_note: decision.note,
        decided_by: decision.decidedBy,
        decided_at: new Date(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async hasPending(db: Queryable, eventId: number): Promise<boolean> {
    const row = await db
      .selectFrom('disputes')
      .select('id')
      .where('event_id', '=', eventId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row !== undefined;
  }
}

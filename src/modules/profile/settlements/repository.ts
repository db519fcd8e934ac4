import type { Queryable } from '../../../platform/db/types.js';

/** What settlement paid each of a user's positions (written by the settlement itself, never changed). */
export class SettlementsRepository {
  list(
    db: Queryable,
    userId: number,
    filter: { eventSlug: string | null; beforeId: number | null; limit: number },
  ) {
    let query = db
      .selectFrom('position_settlements as s')
      .innerJoin('options as o', 'o.id', 's.option_id')
      .innerJoin('events as e', 'e.id', 's.event_id')
      .select([
        's.id',
        's.option_id',
        's.side',
        's.outcome',
        's.quantity',
        's.payout_cents',
        's.pnl_cents',
        's.created_at',
        'o.label as option_label',
        'e.slug as event_slug',
        'e.title as event_title',
      ])
      .where('s.user_id', '=', userId)
      .orderBy('s.id', 'desc')
      .limit(filter.limit + 1);
    if (filter.eventSlug !== null) query = query.where('e.slug', '=', filter.eventSlug);
    if (filter.beforeId !== null) query = query.where('s.id', '<', filter.beforeId);
    return query.execute();
  }
}

export type SettlementRow = Awaited<ReturnType<SettlementsRepository['list']>>[number];

import type { Queryable } from '../../../platform/db/types.js';

/** The caller's trades with their market and order, read in id order one page at a time. */
export class TradeExportRepository {
  page(db: Queryable, userId: number, afterId: number, limit: number) {
    return db
      .selectFrom('trades as t')
      .innerJoin('events as e', 'e.id', 't.event_id')
      .innerJoin('options as o', 'o.id', 't.option_id')
      .innerJoin('orders as ord', 'ord.id', 't.order_id')
      .select([
        't.id',
        't.created_at',
        'e.slug',
        'e.title',
        'o.label',
        't.side',
        't.action',
        't.quantity',
        't.price_cents',
        't.fee_cents',
        't.liquidity',
        't.order_id',
        'ord.kind as order_kind',
      ])
      .where('t.user_id', '=', userId)
      .where('t.id', '>', afterId)
      .orderBy('t.id')
      .limit(limit)
      .execute();
  }
}

export type TradeExportRow = Awaited<ReturnType<TradeExportRepository['page']>>[number];

import { sql } from 'kysely';
import type { Queryable } from '../../../platform/db/types.js';

/** A conversion as the export reads it: its legs and the labels of its event's options. */
export interface ConversionExportRow {
  id: number;
  created_at: Date;
  slug: string;
  title: string;
  kind: 'convert' | 'split' | 'merge';
  quantity: number;
  cash_cents: number;
  legs: { optionId: number; side: 'YES' | 'NO'; quantity: number; priceCents: number }[];
  labels: Record<string, string>;
}

/** The caller's trades, conversions and settlements with their markets, each read in id order a page at a time. */
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

  async conversions(db: Queryable, userId: number, afterId: number, limit: number) {
    const { rows } = await sql<ConversionExportRow>`
      SELECT c.id, c.created_at, e.slug, e.title, c.kind, c.quantity, c.cash_cents, c.legs,
        (SELECT json_object_agg(o.id, o.label) FROM options o WHERE o.event_id = c.event_id) AS labels
      FROM conversions c JOIN events e ON e.id = c.event_id
      WHERE c.user_id = ${userId} AND c.id > ${afterId}
      ORDER BY c.id LIMIT ${limit}`.execute(db);
    return rows.map((row) => ({ ...row, id: Number(row.id), quantity: Number(row.quantity) }));
  }

  settlements(db: Queryable, userId: number, afterId: number, limit: number) {
    return db
      .selectFrom('position_settlements as s')
      .innerJoin('events as e', 'e.id', 's.event_id')
      .innerJoin('options as o', 'o.id', 's.option_id')
      .select([
        's.id',
        's.created_at',
        'e.slug',
        'e.title',
        'o.label',
        's.side',
        's.outcome',
        's.quantity',
        's.payout_cents',
        's.pnl_cents',
      ])
      .where('s.user_id', '=', userId)
      .where('s.id', '>', afterId)
      .orderBy('s.id')
      .limit(limit)
      .execute();
  }
}

export type TradeExportRow = Awaited<ReturnType<TradeExportRepository['page']>>[number];
export type SettlementExportRow = Awaited<ReturnType<TradeExportRepository['settlements']>>[number];

import type { Database } from '../../src/platform/db/database.js';

export interface TradeRowFields {
  userId: number | string;
  optionId: number;
  side?: 'YES' | 'NO';
  action?: 'BUY' | 'SELL';
  quantity?: number;
  priceCents?: number;
  feeCents?: number;
  liquidity?: 'maker' | 'taker';
  /** Defaults to a minute ago, so background scans that wait out in-flight commits see the row at once. */
  createdAt?: Date;
}

/**
 * Writes an execution straight into orders, fills and trades, for tests of areas that read trade history
 * (export, badges, XP, referrals) without going through matching. No money moves and no position changes.
 */
export async function insertTradeRow(
  database: Database,
  fields: TradeRowFields,
): Promise<{ id: number; orderId: number }> {
  const side = fields.side ?? 'YES';
  const action = fields.action ?? 'BUY';
  const quantity = fields.quantity ?? 10;
  const price = fields.priceCents ?? 50;
  const userId = Number(fields.userId);
  const createdAt = fields.createdAt ?? new Date(Date.now() - 60_000);
  const yesPrice = side === 'YES' ? price : 100 - price;
  const bid = (side === 'YES') === (action === 'BUY');
  return database.db.transaction().execute(async (trx) => {
    const option = await trx
      .selectFrom('options')
      .select('event_id')
      .where('id', '=', fields.optionId)
      .executeTakeFirstOrThrow();
    const order = await trx
      .insertInto('orders')
      .values({
        user_id: userId,
        option_id: fields.optionId,
        kind: 'market',
        side,
        action,
        price_cents: price,
        book_side: bid ? 'bid' : 'ask',
        book_price: yesPrice,
        quantity,
        filled_quantity: quantity,
        status: 'filled',
        created_at: createdAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const fill = await trx
      .insertInto('fills')
      .values({
        option_id: fields.optionId,
        yes_price: yesPrice,
        quantity,
        kind: action === 'BUY' ? 'mint' : 'merge',
        taker_order_id: order.id,
        created_at: createdAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const trade = await trx
      .insertInto('trades')
      .values({
        fill_id: fill.id,
        order_id: order.id,
        user_id: userId,
        option_id: fields.optionId,
        event_id: option.event_id,
        side,
        action,
        quantity,
        price_cents: price,
        fee_cents: fields.feeCents ?? 0,
        liquidity: fields.liquidity ?? 'taker',
        created_at: createdAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: trade.id, orderId: order.id };
  });
}

import { sql } from 'kysely';
import type { KeyUsage } from '../../exchange/key-limits.js';
import { sideBySide } from '../../platform/db/side-by-side.js';
import type { Queryable } from '../../platform/db/types.js';

/** A credential whose limits span markets, as orders name it (`apiKey:<id>`), with its key and its user. */
export interface LimitedKey {
  credential: string;
  keyId: number;
  userId: number;
}

/**
 * What API keys' orders use of the limits that span markets (src/exchange/key-limits.ts), read under the keys'
 * locks: their limits rows, locked after the markets' locks and in key order, so that the transactions of two
 * markets count one key's orders one after the other and never both let through the last of a limit. Only more
 * orders of the key raise what it uses, and those wait for the lock; fills and cancels elsewhere only lower it.
 */
export class KeyUsageRepository {
  async lockAndRead(trx: Queryable, keys: LimitedKey[]): Promise<Map<string, KeyUsage>> {
    const usage = new Map<string, KeyUsage>(
      keys.map((key) => [key.credential, { openOrders: 0, dailyLossCents: 0 }]),
    );
    if (keys.length === 0) return usage;
    const keyIds = [...new Set(keys.map((key) => key.keyId))].sort((a, b) => a - b);
    await trx
      .selectFrom('api_key_limits')
      .select('key_id')
      .where('key_id', '=', sql<number>`ANY(${keyIds}::bigint[])`)
      .orderBy('key_id')
      .forUpdate()
      .execute();
    const credentials = keys.map((key) => key.credential);
    const userIds = [...new Set(keys.map((key) => key.userId))];
    const [open, traded] = await sideBySide([
      this.resting(trx, credentials, userIds),
      this.tradedToday(trx, credentials, userIds),
    ] as const);
    for (const row of open) {
      const entry = usage.get(row.placed_by);
      if (!entry) continue;
      entry.openOrders = Number(row.orders);
      entry.dailyLossCents += Number(row.held);
    }
    for (const row of traded) {
      const entry = usage.get(row.placed_by);
      if (entry) entry.dailyLossCents += Number(row.paid);
    }
    return usage;
  }

  /** The keys' resting orders: how many, and what their purchases hold. */
  private resting(trx: Queryable, credentials: string[], userIds: number[]) {
    return trx
      .selectFrom('orders')
      .select([
        'placed_by',
        sql<string>`count(*)`.as('orders'),
        sql<string>`coalesce(sum(reserved_cents) FILTER (WHERE action = 'BUY'), 0)`.as('held'),
      ])
      .where('user_id', '=', sql<number>`ANY(${userIds}::bigint[])`)
      .where('placed_by', '=', sql<string>`ANY(${credentials}::text[])`)
      .where('status', 'in', ['open', 'partially_filled'])
      .groupBy('placed_by')
      .execute() as Promise<{ placed_by: string; orders: string; held: string }[]>;
  }

  /** What the keys' trades of the day (UTC, by the database's clock) paid, less what their sales brought. */
  private tradedToday(trx: Queryable, credentials: string[], userIds: number[]) {
    return trx
      .selectFrom('trades as t')
      .innerJoin('orders as o', 'o.id', 't.order_id')
      .select([
        'o.placed_by',
        sql<string>`coalesce(sum(CASE WHEN t.action = 'BUY'
          THEN t.price_cents * t.quantity + t.fee_cents
          ELSE t.fee_cents - t.price_cents * t.quantity END), 0)`.as('paid'),
      ])
      .where('t.user_id', '=', sql<number>`ANY(${userIds}::bigint[])`)
      .where('t.created_at', '>=', sql<Date>`date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`)
      .where('o.placed_by', '=', sql<string>`ANY(${credentials}::text[])`)
      .groupBy('o.placed_by')
      .execute() as Promise<{ placed_by: string; paid: string }[]>;
  }
}

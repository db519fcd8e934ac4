import type { Selectable } from 'kysely';
import type { SideText } from '../../platform/db/schema.js';
import type { Queryable, Tx } from '../../platform/db/types.js';
import type { CopyFollowsTable, CopyMirrorsTable, MirrorStatus, SizingMode } from './tables.js';

export type FollowRow = Selectable<CopyFollowsTable>;
export type MirrorRow = Selectable<CopyMirrorsTable>;

export interface FollowSettings {
  sizingMode: SizingMode;
  fixedQuantity: number | null;
  fractionBps: number | null;
  maxQuantityPerTrade: number;
  dailyLimitCents: number;
  enabled: boolean;
}

export interface NewMirror {
  leaderOrderId: number;
  leaderId: number;
  followerId: number;
  optionId: number;
  side: SideText;
  action: 'BUY' | 'SELL';
  leaderQuantity: number;
  leaderNotionalCents: number;
  worstPriceCents: number;
}

/** Copy trading: who follows whom, and the mirrors of leaders' trades. */
export class CopyRepository {
  findUser(db: Queryable, ref: { id: number } | { username: string }) {
    const query = db.selectFrom('users').select(['id', 'username']);
    return (
      'id' in ref ? query.where('id', '=', ref.id) : query.where('username', '=', ref.username)
    ).executeTakeFirst();
  }

  followsOf(db: Queryable, followerId: number) {
    return db
      .selectFrom('copy_follows as f')
      .innerJoin('users as u', 'u.id', 'f.leader_id')
      .selectAll('f')
      .select('u.username as leader_username')
      .where('f.follower_id', '=', followerId)
      .orderBy('f.id')
      .execute();
  }

  countFollows(db: Queryable, followerId: number): Promise<{ n: number }> {
    return db
      .selectFrom('copy_follows')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('follower_id', '=', followerId)
      .executeTakeFirstOrThrow();
  }

  lockFollow(trx: Tx, followerId: number, leaderId: number): Promise<FollowRow | undefined> {
    return trx
      .selectFrom('copy_follows')
      .selectAll()
      .where('follower_id', '=', followerId)
      .where('leader_id', '=', leaderId)
      .forUpdate()
      .executeTakeFirst();
  }

  /** Creates or replaces the follow; `created` tells which. */
  async upsertFollow(db: Queryable, followerId: number, leaderId: number, s: FollowSettings) {
    const values = {
      sizing_mode: s.sizingMode,
      fixed_quantity: s.fixedQuantity,
      fraction_bps: s.fractionBps,
      max_quantity_per_trade: s.maxQuantityPerTrade,
      daily_limit_cents: s.dailyLimitCents,
      enabled: s.enabled,
    };
    return db
      .insertInto('copy_follows')
      .values({ follower_id: followerId, leader_id: leaderId, ...values })
      .onConflict((oc) =>
        oc.columns(['follower_id', 'leader_id']).doUpdateSet({ ...values, updated_at: new Date() }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  async deleteFollow(db: Queryable, followerId: number, leaderId: number): Promise<boolean> {
    const result = await db
      .deleteFrom('copy_follows')
      .where('follower_id', '=', followerId)
      .where('leader_id', '=', leaderId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Followers copying this leader right now: one indexed read per market order of a possible leader. */
  enabledFollowers(
    db: Queryable,
    leaderIds: number[],
  ): Promise<{ leader_id: number; follower_id: number }[]> {
    if (leaderIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('copy_follows')
      .select(['leader_id', 'follower_id'])
      .where('leader_id', 'in', leaderIds)
      .where('enabled', '=', true)
      .execute();
  }

  async insertMirrors(db: Queryable, mirrors: NewMirror[]): Promise<void> {
    if (mirrors.length === 0) return;
    await db
      .insertInto('copy_mirrors')
      .values(
        mirrors.map((m) => ({
          leader_order_id: m.leaderOrderId,
          leader_id: m.leaderId,
          follower_id: m.followerId,
          option_id: m.optionId,
          side: m.side,
          action: m.action,
          leader_quantity: m.leaderQuantity,
          leader_notional_cents: m.leaderNotionalCents,
          worst_price_cents: m.worstPriceCents,
        })),
      )
      .onConflict((oc) => oc.columns(['leader_order_id', 'follower_id']).doNothing())
      .execute();
  }

  /**
   * Claims one mirror to work on: a pending one, or one left processing by a worker that stopped (its claim is
   * older than `staleAfterMs`). Locked for the caller's transaction; other workers skip it.
   */
  claimNext(trx: Tx, staleAfterMs: number): Promise<MirrorRow | undefined> {
    return trx
      .selectFrom('copy_mirrors')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb('status', '=', 'pending'),
          eb.and([
            eb('status', '=', 'processing'),
            eb('claimed_at', '<', new Date(Date.now() - staleAfterMs)),
          ]),
        ]),
      )
      .orderBy('created_at')
      .orderBy('id')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
  }

  /** Spent and held (by mirrors being placed) on BUY mirrors from this leader since `since`. */
  async buyNotionalSince(db: Queryable, followerId: number, leaderId: number, since: Date): Promise<number> {
    const row = await db
      .selectFrom('copy_mirrors')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('notional_cents'), eb.lit(0)).as('total'))
      .where('follower_id', '=', followerId)
      .where('leader_id', '=', leaderId)
      .where('action', '=', 'BUY')
      .where('status', 'in', ['processing', 'placed'])
      .where('created_at', '>=', since)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  availableShares(db: Queryable, userId: number, optionId: number, side: SideText): Promise<number> {
    return db
      .selectFrom('positions')
      .select(['quantity', 'reserved_quantity'])
      .where('user_id', '=', userId)
      .where('option_id', '=', optionId)
      .where('side', '=', side)
      .executeTakeFirst()
      .then((row) => (row ? row.quantity - row.reserved_quantity : 0));
  }

  async updateMirror(
    db: Queryable,
    id: number,
    change: {
      status: MirrorStatus;
      quantity?: number | null;
      notionalCents?: number;
      orderId?: number | null;
      filledQuantity?: number;
      reason?: string | null;
    },
  ): Promise<void> {
    const processing = change.status === 'processing';
    await db
      .updateTable('copy_mirrors')
      .set({
        status: change.status,
        ...(change.quantity !== undefined ? { quantity: change.quantity } : {}),
        ...(change.notionalCents !== undefined ? { notional_cents: change.notionalCents } : {}),
        ...(change.orderId !== undefined ? { order_id: change.orderId } : {}),
        ...(change.filledQuantity !== undefined ? { filled_quantity: change.filledQuantity } : {}),
        ...(change.reason !== undefined ? { reason: change.reason } : {}),
        ...(processing ? { claimed_at: new Date() } : { processed_at: new Date() }),
      })
      .where('id', '=', id)
      .execute();
  }

  listMirrors(db: Queryable, followerId: number, beforeId: number | null, limit: number) {
    let query = db
      .selectFrom('copy_mirrors as m')
      .innerJoin('users as u', 'u.id', 'm.leader_id')
      .innerJoin('options as o', 'o.id', 'm.option_id')
      .innerJoin('events as e', 'e.id', 'o.event_id')
      .selectAll('m')
      .select(['u.username as leader_username', 'e.slug as event_slug', 'o.label as option_label'])
      .where('m.follower_id', '=', followerId)
      .orderBy('m.id', 'desc')
      .limit(limit + 1);
    if (beforeId !== null) query = query.where('m.id', '<', beforeId);
    return query.execute();
  }
}

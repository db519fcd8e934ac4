import type { Queryable } from '../../platform/db/types.js';

export interface DueReferral {
  referredUserId: number;
  referredUsername: string;
  referrerId: number;
}

/** Referred users, the rewards their first trades paid, and the totals a referrer sees. */
export class ReferralRepository {
  /**
   * Referred users who have traded and whose referrer has not been rewarded yet, claimed for this
   * transaction so concurrent instances take different ones.
   */
  async claimDue(db: Queryable, limit: number): Promise<DueReferral[]> {
    const rows = await db
      .selectFrom('users as u')
      .select(['u.id', 'u.username', 'u.referred_by'])
      .where('u.referred_by', 'is not', null)
      .where(({ exists, selectFrom }) =>
        exists(selectFrom('trades as t').select('t.id').whereRef('t.user_id', '=', 'u.id')),
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('referral_rewards as r').select('r.id').whereRef('r.referred_user_id', '=', 'u.id'),
          ),
        ),
      )
      .orderBy('u.id')
      .limit(limit)
      // NO KEY UPDATE: other work that merely references these users (new trades, notifications) goes on.
      .forNoKeyUpdate()
      .skipLocked()
      .execute();
    return rows.flatMap((row) =>
      row.referred_by === null
        ? []
        : [{ referredUserId: row.id, referredUsername: row.username, referrerId: row.referred_by }],
    );
  }

  /** Records the reward; null when this referred user's referrer was already rewarded. */
  async insertReward(
    db: Queryable,
    reward: { referredUserId: number; referrerId: number; amountCents: number },
  ): Promise<number | null> {
    const row = await db
      .insertInto('referral_rewards')
      .values({
        referred_user_id: reward.referredUserId,
        referrer_id: reward.referrerId,
        amount_cents: reward.amountCents,
      })
      .onConflict((oc) => oc.column('referred_user_id').doNothing())
      .returning('id')
      .executeTakeFirst();
    return row?.id ?? null;
  }

  async summary(db: Queryable, referrerId: number) {
    const [referred, earned] = await Promise.all([
      db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('referred_by', '=', referrerId)
        .executeTakeFirstOrThrow(),
      db
        .selectFrom('referral_rewards')
        .select((eb) => [
          eb.fn.countAll<number>().as('n'),
          eb.fn.coalesce(eb.fn.sum<number>('amount_cents'), eb.lit(0)).as('total'),
        ])
        .where('referrer_id', '=', referrerId)
        .executeTakeFirstOrThrow(),
    ]);
    return {
      referredCount: Number(referred.n),
      rewardedCount: Number(earned.n),
      totalEarnedCents: Number(earned.total),
    };
  }
}

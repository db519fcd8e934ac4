import type { Queryable } from '../../../platform/db/types.js';

export interface FollowCounts {
  followers: number;
  following: number;
}

/** Who follows whom. */
export class FollowRepository {
  /** Follows; the follow row, or null when it already existed (a concurrent duplicate included). */
  async follow(db: Queryable, followerId: number, followeeId: number) {
    const row = await db
      .insertInto('follows')
      .values({ follower_id: followerId, followee_id: followeeId })
      .onConflict((oc) => oc.columns(['follower_id', 'followee_id']).doNothing())
      .returning(['id', 'created_at'])
      .executeTakeFirst();
    return row ?? null;
  }

  find(db: Queryable, followerId: number, followeeId: number) {
    return db
      .selectFrom('follows')
      .select(['id', 'created_at'])
      .where('follower_id', '=', followerId)
      .where('followee_id', '=', followeeId)
      .executeTakeFirst();
  }

  async unfollow(db: Queryable, followerId: number, followeeId: number): Promise<boolean> {
    const result = await db
      .deleteFrom('follows')
      .where('follower_id', '=', followerId)
      .where('followee_id', '=', followeeId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Follower and following counts of a user, for profiles. */
  async counts(db: Queryable, userId: number): Promise<FollowCounts> {
    const row = await db
      .selectNoFrom((eb) => [
        eb
          .selectFrom('follows')
          .select(eb.fn.countAll<number>().as('n'))
          .where('followee_id', '=', userId)
          .as('followers'),
        eb
          .selectFrom('follows')
          .select(eb.fn.countAll<number>().as('n'))
          .where('follower_id', '=', userId)
          .as('following'),
      ])
      .executeTakeFirstOrThrow();
    return { followers: Number(row.followers ?? 0), following: Number(row.following ?? 0) };
  }

  /** The users someone follows (direction 'following') or who follow them ('followers'), newest first. */
  list(
    db: Queryable,
    userId: number,
    direction: 'following' | 'followers',
    page: { limit: number; beforeId: number | null },
  ) {
    const [mine, theirs] =
      direction === 'following'
        ? (['f.follower_id', 'f.followee_id'] as const)
        : (['f.followee_id', 'f.follower_id'] as const);
    let query = db
      .selectFrom('follows as f')
      .innerJoin('users as u', 'u.id', theirs)
      .leftJoin('user_preferences as p', 'p.user_id', 'u.id')
      .select(['f.id', 'f.created_at', 'u.id as user_id', 'u.username', 'p.display_name', 'p.avatar_key'])
      .where(mine, '=', userId)
      .orderBy('f.id', 'desc')
      .limit(page.limit + 1);
    if (page.beforeId !== null) query = query.where('f.id', '<', page.beforeId);
    return query.execute();
  }

  findUser(db: Queryable, userId: number) {
    return db.selectFrom('users').select(['id', 'username']).where('id', '=', userId).executeTakeFirst();
  }
}

export type FollowListRow = Awaited<ReturnType<FollowRepository['list']>>[number];

import type { Kysely } from 'kysely';
import type { DB } from '../../../platform/db/schema.js';
import { NotFoundError, ValidationError } from '../../../platform/errors.js';
import { decodeCursor, iso, type PageOf, toPage } from '../../../platform/http.js';
import type { NotificationsService } from '../../notifications/service.js';
import { avatarUrl } from '../avatar/storage.js';
import type { PreferencesRepository } from '../preferences/repository.js';
import type { FollowCounts, FollowListRow, FollowRepository } from './repository.js';

export interface FollowListItemView {
  userId: string;
  username: string;
  displayName: string | null;
  avatarUrl: string | null;
  followedAt: string;
}

/** Following traders. A new follow tells the followed user, unless they turned social notifications off. */
export class FollowService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly follows: FollowRepository,
    private readonly preferences: PreferencesRepository,
    private readonly notifications: NotificationsService,
  ) {}

  async follow(followerId: number, followeeId: number) {
    this.refuseSelf(followerId, followeeId);
    return this.db.transaction().execute(async (trx) => {
      const followee = await this.follows.findUser(trx, followeeId);
      const follower = await this.follows.findUser(trx, followerId);
      if (!followee || !follower) throw new NotFoundError('User');
      const created = await this.follows.follow(trx, followerId, followeeId);
      const row = created ?? (await this.follows.find(trx, followerId, followeeId));
      if (!row) throw new Error(`follow ${followerId} → ${followeeId} vanished`);
      if (created && (await this.preferences.accepts(trx, followeeId, 'social'))) {
        await this.notifications.notify(trx, {
          userId: followeeId,
          type: 'social.follow',
          title: 'New follower',
          body: `${follower.username} started following you.`,
          data: { followerId: String(followerId), username: follower.username },
        });
      }
      const counts = await this.follows.counts(trx, followeeId);
      return {
        created: created !== null,
        follow: {
          userId: String(followeeId),
          username: followee.username,
          following: true as const,
          followedAt: iso(row.created_at),
          followerCount: counts.followers,
        },
      };
    });
  }

  async unfollow(followerId: number, followeeId: number): Promise<void> {
    this.refuseSelf(followerId, followeeId);
    if (!(await this.follows.findUser(this.db, followeeId))) throw new NotFoundError('User');
    await this.follows.unfollow(this.db, followerId, followeeId);
  }

  counts(userId: number): Promise<FollowCounts> {
    return this.follows.counts(this.db, userId);
  }

  async list(
    userId: number,
    direction: 'following' | 'followers',
    query: { limit: number; cursor?: string | undefined },
  ): Promise<PageOf<FollowListItemView>> {
    const cursor = decodeCursor(query.cursor, 1);
    const rows = await this.follows.list(this.db, userId, direction, {
      limit: query.limit,
      beforeId: cursor ? Number(cursor[0]) : null,
    });
    return toPage(
      rows,
      query.limit,
      (row) => this.toItem(row),
      (row) => [row.id],
    );
  }

  private toItem(row: FollowListRow): FollowListItemView {
    return {
      userId: String(row.user_id),
      username: row.username,
      displayName: row.display_name,
      avatarUrl: row.avatar_key ? avatarUrl(row.avatar_key) : null,
      followedAt: iso(row.created_at),
    };
  }

  private refuseSelf(followerId: number, followeeId: number): void {
    if (followerId === followeeId) {
      throw new ValidationError('You cannot follow yourself', [
        { field: 'params.userId', message: 'is your own id' },
      ]);
    }
  }
}

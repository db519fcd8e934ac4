import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { avatarUrl } from './avatar/storage.js';
import type { FollowRepository } from './follow/repository.js';
import type { PreferencesRepository } from './preferences/repository.js';

export interface ProfileCard {
  displayName: string | null;
  bio: string;
  avatarUrl: string | null;
  followerCount: number;
  followingCount: number;
}

/** What a public profile shows of a user's own choices: display name, bio, avatar and follow counts. */
export class PublicProfileService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly preferences: PreferencesRepository,
    private readonly follows: FollowRepository,
  ) {}

  async card(userId: number): Promise<ProfileCard> {
    const [rows, counts] = await Promise.all([
      this.preferences.cards(this.db, [userId]),
      this.follows.counts(this.db, userId),
    ]);
    const row = rows[0];
    return {
      displayName: row?.display_name ?? null,
      bio: row?.bio ?? '',
      avatarUrl: row?.avatar_key ? avatarUrl(row.avatar_key) : null,
      followerCount: counts.followers,
      followingCount: counts.following,
    };
  }

  /** Display name and avatar of several users at once, for lists of people (feeds, leaderboards). */
  async cards(
    userIds: number[],
  ): Promise<Map<number, { displayName: string | null; avatarUrl: string | null }>> {
    const rows = await this.preferences.cards(this.db, userIds);
    return new Map(
      rows.map((row) => [
        row.user_id,
        {
          displayName: row.display_name,
          avatarUrl: row.avatar_key ? avatarUrl(row.avatar_key) : null,
        },
      ]),
    );
  }
}

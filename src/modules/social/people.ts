import type { Queryable } from '../../platform/db/types.js';
import type { GamificationModule } from '../gamification/module.js';
import type { ProfileModule } from '../profile/module.js';

export interface PersonCard {
  displayName: string | null;
  avatarUrl: string | null;
}

/**
 * What the social and competition areas need to know about people from the account-features area: display
 * names and avatars, profile cards, levels, and whether someone wants social or competition notifications.
 */
export interface People {
  cards(userIds: number[]): Promise<Map<number, PersonCard>>;
  card(userId: number): Promise<{
    displayName: string | null;
    bio: string;
    avatarUrl: string | null;
    followerCount: number;
    followingCount: number;
  }>;
  level(userId: number): Promise<number>;
  accepts(db: Queryable, userId: number, category: 'social' | 'competitions'): Promise<boolean>;
}

export function peopleFrom(profile: ProfileModule, gamification: GamificationModule): People {
  return {
    cards: (userIds) => profile.publicProfiles.cards([...new Set(userIds)]),
    card: (userId) => profile.publicProfiles.card(userId),
    level: async (userId) => (await gamification.badges.xp(userId)).level,
    accepts: (db, userId, category) => profile.notificationChoices.accepts(db, userId, category),
  };
}

export const NO_CARD: PersonCard = { displayName: null, avatarUrl: null };

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { CredentialChanges } from '../accounts/credentials.js';
import type { GamificationModule } from '../gamification/module.js';
import type { NotificationsService } from '../notifications/service.js';
import type { ProfileModule } from '../profile/module.js';
import { socialAdminRoutes } from './admin-routes.js';
import { DiscussionService } from './discussion.js';
import { DiscussionEvents } from './discussion-events.js';
import { DiscussionRepository } from './discussion-repository.js';
import { ModerationService } from './moderation.js';
import { ModerationRepository } from './moderation-repository.js';
import { type People, peopleFrom } from './people.js';
import { PerformanceRepository } from './performance-repository.js';
import { ProfilesService } from './profiles.js';
import { type SocialServices, socialRoutes } from './routes.js';
import type { DraftEvents } from './suggestions.js';
import { SuggestionsService } from './suggestions.js';
import { SuggestionsRepository } from './suggestions-repository.js';

export interface SocialModule extends SocialServices {
  /** Every change to a market's discussion, for the live stream. */
  discussionEvents: DiscussionEvents;
  performance: PerformanceRepository;
  people: People;
}

export function createSocial(deps: {
  db: Kysely<DB>;
  markets: DraftEvents;
  notifications: NotificationsService;
  profile: ProfileModule;
  gamification: GamificationModule;
  /** Suspensions take effect at once on cached credentials. */
  credentials: CredentialChanges;
}): SocialModule {
  const { db, markets, notifications } = deps;
  const performance = new PerformanceRepository();
  const people = peopleFrom(deps.profile, deps.gamification);
  const discussionRepository = new DiscussionRepository();
  const discussionEvents = new DiscussionEvents(discussionRepository);
  return {
    discussion: new DiscussionService(db, discussionRepository, notifications, people, discussionEvents),
    discussionEvents,
    moderation: new ModerationService(
      db,
      new ModerationRepository(),
      notifications,
      deps.credentials,
      discussionEvents,
    ),
    suggestions: new SuggestionsService(db, new SuggestionsRepository(), markets, notifications),
    profiles: new ProfilesService(db, performance, people),
    performance,
    people,
  };
}

/** Profiles, discussion, reports, trending traders and market suggestions, with their admin side. */
export const socialModule: FastifyPluginAsyncTypebox<{ social: SocialModule }> = async (app, { social }) => {
  await app.register(socialRoutes, social);
  await app.register(socialAdminRoutes, social);
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { S3Config } from '../../platform/config.js';
import type { DB } from '../../platform/db/schema.js';
import type { NotificationsService } from '../notifications/service.js';
import { avatarRoutes } from './avatar/routes.js';
import { AvatarService } from './avatar/service.js';
import { createAvatarStorage } from './avatar/storage.js';
import { ProfileEventsRepository } from './events-repository.js';
import { TradeExportRepository } from './export/repository.js';
import { tradeExportRoutes } from './export/routes.js';
import { TradeExportService } from './export/service.js';
import { FollowRepository } from './follow/repository.js';
import { followRoutes } from './follow/routes.js';
import { FollowService } from './follow/service.js';
import { NotesRepository } from './notes/repository.js';
import { notesRoutes } from './notes/routes.js';
import { NotesService } from './notes/service.js';
import { PreferencesRepository } from './preferences/repository.js';
import { preferencesRoutes } from './preferences/routes.js';
import { PreferencesService } from './preferences/service.js';
import { PublicProfileService } from './public-profile.js';
import { SettlementsRepository } from './settlements/repository.js';
import { settlementsRoutes } from './settlements/routes.js';
import { SettlementsService } from './settlements/service.js';
import { WatchlistRepository } from './watchlist/repository.js';
import { watchlistRoutes } from './watchlist/routes.js';
import { WatchlistService } from './watchlist/service.js';

export interface ProfileModule {
  preferences: PreferencesService;
  avatars: AvatarService;
  notes: NotesService;
  watchlist: WatchlistService;
  follows: FollowService;
  exports: TradeExportService;
  settlements: SettlementsService;
  /** Display name, bio, avatar and follow counts for public profiles. */
  publicProfiles: PublicProfileService;
  /** Whether a user accepts feed notifications of a category (trades, social, competitions, marketing). */
  notificationChoices: PreferencesRepository;
}

export function createProfile(deps: {
  db: Kysely<DB>;
  notifications: NotificationsService;
  config: { avatarDir: string; s3: S3Config | null };
}): ProfileModule {
  const { db, notifications, config } = deps;
  const preferences = new PreferencesRepository();
  const follows = new FollowRepository();
  const events = new ProfileEventsRepository();
  return {
    preferences: new PreferencesService(db, preferences),
    avatars: new AvatarService(db, preferences, createAvatarStorage(config)),
    notes: new NotesService(db, new NotesRepository(), events),
    watchlist: new WatchlistService(db, new WatchlistRepository(), events),
    follows: new FollowService(db, follows, preferences, notifications),
    exports: new TradeExportService(db, new TradeExportRepository()),
    settlements: new SettlementsService(db, new SettlementsRepository()),
    publicProfiles: new PublicProfileService(db, preferences, follows),
    notificationChoices: preferences,
  };
}

/** Preferences, avatar, private trade notes, watchlist, follows, the CSV trade export and settlement payouts. */
export const profileModule: FastifyPluginAsyncTypebox<{ profile: ProfileModule }> = async (
  app,
  { profile },
) => {
  await app.register(preferencesRoutes, profile);
  await app.register(avatarRoutes, profile);
  await app.register(notesRoutes, profile);
  await app.register(watchlistRoutes, profile);
  await app.register(followRoutes, profile);
  await app.register(tradeExportRoutes, profile);
  await app.register(settlementsRoutes, profile);
};

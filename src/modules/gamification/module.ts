import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { JobRunner } from '../../platform/jobs.js';
import { AccountsRepository } from '../accounts/repository.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { NotificationsService } from '../notifications/service.js';
import { ReferralRepository } from './referral-repository.js';
import { REFERRAL_REWARD_JOB, ReferralService, type ReferralSettings } from './referral-service.js';
import { GamificationRepository } from './repository.js';
import { gamificationRoutes } from './routes.js';
import { BADGE_SCAN_JOB, BadgesService } from './service.js';

export interface GamificationModule {
  badges: BadgesService;
  referrals: ReferralService;
}

export function createGamification(deps: {
  db: Kysely<DB>;
  ledger: LedgerRepository;
  notifications: NotificationsService;
  jobs: JobRunner;
  settings: ReferralSettings;
}): GamificationModule {
  const { db, ledger, notifications, jobs } = deps;
  const badges = new BadgesService(db, new GamificationRepository(), notifications);
  const referrals = new ReferralService(
    db,
    new ReferralRepository(),
    new AccountsRepository(),
    ledger,
    notifications,
    deps.settings,
  );
  jobs.register(BADGE_SCAN_JOB, () => badges.scanForBadges());
  jobs.register(REFERRAL_REWARD_JOB, () => referrals.rewardQualifiedReferrals());
  return { badges, referrals };
}

/** Badges, XP and levels, and referrals. */
export const gamificationModule: FastifyPluginAsyncTypebox<{ gamification: GamificationModule }> = async (
  app,
  { gamification },
) => {
  await app.register(gamificationRoutes, gamification);
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentUser } from '../../platform/auth.js';
import { errors, iso } from '../../platform/http.js';
import type { ReferralService } from './referral-service.js';
import { BadgesBody, ReferralBody, XpBody } from './schemas.js';
import type { BadgesService } from './service.js';

const tags = ['Account'];
const security = [{ bearerAuth: [] }];

export const gamificationRoutes: FastifyPluginAsyncTypebox<{
  badges: BadgesService;
  referrals: ReferralService;
}> = async (app, { badges, referrals }) => {
  app.get(
    '/api/me/badges',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Earned and locked badges',
        description:
          'Every badge of the catalogue, split into `earned` (with `earnedAt`) and `locked` (with ' +
          '`progress` {current, target}). Badges are awarded by a background scan of new activity, each at ' +
          'most once, with a `badge.earned` notification; this call also awards anything already due.',
        response: { 200: BadgesBody, ...errors(401) },
      },
    },
    async (request) => {
      const { earned, locked } = await badges.badges(currentUser(request).userId);
      return { earned: earned.map((badge) => ({ ...badge, earnedAt: iso(badge.earnedAt) })), locked };
    },
  );

  app.get(
    '/api/me/xp',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Experience points, level and progress to the next level',
        description:
          'XP is computed from your activity each time: 10 per trade, 1 per 100 cents of traded notional, ' +
          '5 per streak day, 25 per correct prediction (winning shares held in a settled option), 50 per ' +
          'badge. Level L starts at 100·(L−1)·L/2 XP (1: 0, 2: 100, 3: 300, 4: 600, 5: 1000).',
        response: { 200: XpBody, ...errors(401) },
      },
    },
    async (request) => badges.xp(currentUser(request).userId),
  );

  app.get(
    '/api/me/referral',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Your referral code, share link and earnings',
        description:
          'Share the link; an account registered with your code counts in `referredCount`. When it makes ' +
          'its first trade you are paid `rewardCents` once (REFERRAL_REWARD_CENTS) and notified.',
        response: { 200: ReferralBody, ...errors(401) },
      },
    },
    async (request) => referrals.referral(currentUser(request).userId),
  );
};

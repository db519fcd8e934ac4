import { Type } from '@sinclair/typebox';

const BadgeFields = {
  id: Type.String({ description: 'Stable badge id, e.g. first-trade, streak-7' }),
  name: Type.String(),
  description: Type.String(),
  criteria: Type.String({ description: 'What earns the badge, in words' }),
};

const Progress = Type.Object({
  current: Type.Integer({ description: 'Progress so far, clamped to 0..target' }),
  target: Type.Integer(),
  unit: Type.Union([Type.Literal('cents'), Type.Literal('count')], {
    description: 'cents: current and target are money (show them in credits); count: a number of things',
  }),
});

export const BadgesBody = Type.Object({
  earned: Type.Array(Type.Object({ ...BadgeFields, earnedAt: Type.String({ format: 'date-time' }) }), {
    description: 'Badges held, oldest first',
  }),
  locked: Type.Array(Type.Object({ ...BadgeFields, progress: Progress }), {
    description: 'Badges not earned yet, in catalogue order, with progress',
  }),
});

export const XpBody = Type.Object({
  xp: Type.Integer({ description: 'Total experience points' }),
  level: Type.Integer({ minimum: 1 }),
  levelXp: Type.Integer({ description: 'XP at which the current level starts' }),
  nextLevelXp: Type.Integer({ description: 'XP at which the next level starts' }),
  progressBps: Type.Integer({
    minimum: 0,
    maximum: 9999,
    description: 'Progress from levelXp to nextLevelXp in basis points',
  }),
  breakdown: Type.Object(
    {
      trades: Type.Integer(),
      volume: Type.Integer(),
      streakDays: Type.Integer(),
      correctPredictions: Type.Integer(),
      badges: Type.Integer(),
    },
    { description: 'Where the XP comes from' },
  ),
});

export const ReferralBody = Type.Object({
  code: Type.String({ description: 'Your referral code' }),
  link: Type.String({ description: 'Share link: PUBLIC_URL/register?ref=<code>' }),
  referredCount: Type.Integer({ description: 'Accounts registered with your code' }),
  rewardedCount: Type.Integer({
    description: 'Referred accounts that made a first trade (each paid you once)',
  }),
  totalEarnedCents: Type.Integer(),
  rewardCents: Type.Integer({ description: 'What each referred first trade pays you now' }),
});

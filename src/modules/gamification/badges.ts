/**
 * The badge catalogue: every badge, what earns it and how far a user is from it, in one place.
 * Progress is measured on activity derived from the database (trades, positions, streak, referrals,
 * tournament results), so it can be recomputed at any time and never drifts.
 */

/** What a user has done, as the badges and XP measure it. */
export interface ActivityStats {
  /** Executions (trades rows) of the user. */
  trades: number;
  /** Sum of quantity × price of those executions, in cents. */
  volumeCents: number;
  /** Realized profit and loss over all positions, in cents (can be negative). */
  realizedProfitCents: number;
  /** Longest daily login streak, in days. */
  longestStreak: number;
  /** Login days that paid a streak bonus. */
  streakDays: number;
  /** Options of settled events in which the user held shares of the winning side at the close. */
  correctPredictions: number;
  /** Referred users who have made at least one trade. */
  qualifiedReferrals: number;
  /** Tournament finishes in the top three, and in first place. */
  tournamentPodiums: number;
  tournamentWins: number;
}

export const NO_ACTIVITY: ActivityStats = {
  trades: 0,
  volumeCents: 0,
  realizedProfitCents: 0,
  longestStreak: 0,
  streakDays: 0,
  correctPredictions: 0,
  qualifiedReferrals: 0,
  tournamentPodiums: 0,
  tournamentWins: 0,
};

export type BadgeMetric = Exclude<keyof ActivityStats, 'streakDays'>;

export interface BadgeDefinition {
  id: string;
  name: string;
  description: string;
  /** The rule in words, as shown to the user. */
  criteria: string;
  metric: BadgeMetric;
  target: number;
}

export const BADGES: readonly BadgeDefinition[] = [
  {
    id: 'first-trade',
    name: 'First Trade',
    description: 'Made your first trade.',
    criteria: 'Complete 1 trade',
    metric: 'trades',
    target: 1,
  },
  {
    id: 'active-trader',
    name: 'Active Trader',
    description: 'A hundred executions on the books.',
    criteria: 'Complete 100 trades',
    metric: 'trades',
    target: 100,
  },
  {
    id: 'volume-bronze',
    name: 'Volume: Bronze',
    description: 'Traded 100.00 in notional value.',
    criteria: 'Trade 100 credits of volume (shares × price)',
    metric: 'volumeCents',
    target: 10_000,
  },
  {
    id: 'volume-silver',
    name: 'Volume: Silver',
    description: 'Traded 1,000.00 in notional value.',
    criteria: 'Trade 1,000 credits of volume (shares × price)',
    metric: 'volumeCents',
    target: 100_000,
  },
  {
    id: 'volume-gold',
    name: 'Volume: Gold',
    description: 'Traded 10,000.00 in notional value.',
    criteria: 'Trade 10,000 credits of volume (shares × price)',
    metric: 'volumeCents',
    target: 1_000_000,
  },
  {
    id: 'profit-bronze',
    name: 'Profit: Bronze',
    description: 'Realized 10.00 of profit.',
    criteria: 'Reach 10 credits of realized profit',
    metric: 'realizedProfitCents',
    target: 1_000,
  },
  {
    id: 'profit-silver',
    name: 'Profit: Silver',
    description: 'Realized 100.00 of profit.',
    criteria: 'Reach 100 credits of realized profit',
    metric: 'realizedProfitCents',
    target: 10_000,
  },
  {
    id: 'profit-gold',
    name: 'Profit: Gold',
    description: 'Realized 1,000.00 of profit.',
    criteria: 'Reach 1,000 credits of realized profit',
    metric: 'realizedProfitCents',
    target: 100_000,
  },
  {
    id: 'streak-3',
    name: 'Three-Day Streak',
    description: 'Logged in three days in a row.',
    criteria: 'Reach a 3-day login streak',
    metric: 'longestStreak',
    target: 3,
  },
  {
    id: 'streak-7',
    name: 'Week Streak',
    description: 'Logged in seven days in a row.',
    criteria: 'Reach a 7-day login streak',
    metric: 'longestStreak',
    target: 7,
  },
  {
    id: 'streak-30',
    name: 'Month Streak',
    description: 'Logged in thirty days in a row.',
    criteria: 'Reach a 30-day login streak',
    metric: 'longestStreak',
    target: 30,
  },
  {
    id: 'first-correct-prediction',
    name: 'Called It',
    description: 'Held the winning side of a market when it settled.',
    criteria: 'Hold winning shares in 1 settled market option',
    metric: 'correctPredictions',
    target: 1,
  },
  {
    id: 'oracle',
    name: 'Oracle',
    description: 'Held the winning side of ten settled market options.',
    criteria: 'Hold winning shares in 10 settled market options',
    metric: 'correctPredictions',
    target: 10,
  },
  {
    id: 'first-referral',
    name: 'Recruiter',
    description: 'A friend you referred made their first trade.',
    criteria: '1 referred user makes a trade',
    metric: 'qualifiedReferrals',
    target: 1,
  },
  {
    id: 'referral-5',
    name: 'Ambassador',
    description: 'Five friends you referred are trading.',
    criteria: '5 referred users make a trade',
    metric: 'qualifiedReferrals',
    target: 5,
  },
  {
    id: 'tournament-podium',
    name: 'Podium Finish',
    description: 'Finished a tournament in the top three.',
    criteria: 'Place 1st, 2nd or 3rd in a tournament',
    metric: 'tournamentPodiums',
    target: 1,
  },
  {
    id: 'tournament-winner',
    name: 'Champion',
    description: 'Won a tournament.',
    criteria: 'Place 1st in a tournament',
    metric: 'tournamentWins',
    target: 1,
  },
];

export const BADGES_BY_ID: ReadonlyMap<string, BadgeDefinition> = new Map(BADGES.map((b) => [b.id, b]));

export interface BadgeProgress {
  current: number;
  target: number;
}

/** Progress towards a badge, clamped to 0..target so a loss never shows as negative progress. */
export function progressOf(badge: BadgeDefinition, stats: ActivityStats): BadgeProgress {
  return { current: Math.min(Math.max(stats[badge.metric], 0), badge.target), target: badge.target };
}

export function isAchieved(badge: BadgeDefinition, stats: ActivityStats): boolean {
  return stats[badge.metric] >= badge.target;
}

/** The streak lengths that earn a badge, longest first, for the scan that finds streaks due a badge. */
export const STREAK_BADGES: readonly { id: string; days: number }[] = BADGES.filter(
  (b) => b.metric === 'longestStreak',
)
  .map((b) => ({ id: b.id, days: b.target }))
  .sort((a, b) => b.days - a.days);

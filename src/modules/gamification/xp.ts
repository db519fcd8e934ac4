import type { ActivityStats } from './badges.js';

/**
 * Experience points, computed from the user's activity every time they are read, so they can never drift
 * from the trades, streak days and badges they stand for. docs/features.md documents these tables.
 */
export const XP_RULES = {
  perTrade: 10,
  /** Per full 100 cents of traded notional (quantity × price), summed over all trades. */
  perHundredCentsVolume: 1,
  perStreakDay: 5,
  perCorrectPrediction: 25,
  perBadge: 50,
} as const;

export interface XpBreakdown {
  trades: number;
  volume: number;
  streakDays: number;
  correctPredictions: number;
  badges: number;
}

export function xpBreakdown(stats: ActivityStats, badgesEarned: number): XpBreakdown {
  return {
    trades: stats.trades * XP_RULES.perTrade,
    volume: Math.floor(Math.max(stats.volumeCents, 0) / 100) * XP_RULES.perHundredCentsVolume,
    streakDays: stats.streakDays * XP_RULES.perStreakDay,
    correctPredictions: stats.correctPredictions * XP_RULES.perCorrectPrediction,
    badges: badgesEarned * XP_RULES.perBadge,
  };
}

/** Total XP at which a level starts: level L needs 100·(L−1)·L/2, so 1 → 0, 2 → 100, 3 → 300, 4 → 600. */
export function levelStartXp(level: number): number {
  return (100 * (level - 1) * level) / 2;
}

export interface LevelView {
  xp: number;
  level: number;
  levelXp: number;
  nextLevelXp: number;
  /** Progress from this level's start to the next level's, in basis points (0..9999). */
  progressBps: number;
}

export function levelOf(xp: number): LevelView {
  const total = Math.max(0, Math.floor(xp));
  // Inverse of the curve, then corrected by a step either way against floating-point error.
  let level = Math.max(1, Math.floor((1 + Math.sqrt(1 + total / 12.5)) / 2));
  while (levelStartXp(level + 1) <= total) level += 1;
  while (level > 1 && levelStartXp(level) > total) level -= 1;
  const levelXp = levelStartXp(level);
  const nextLevelXp = levelStartXp(level + 1);
  return {
    xp: total,
    level,
    levelXp,
    nextLevelXp,
    progressBps: Math.floor(((total - levelXp) * 10_000) / (nextLevelXp - levelXp)),
  };
}

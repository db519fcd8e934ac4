import type { UserRow } from '../../platform/db/schema.js';

/**
 * The daily login streak. A day is a calendar day in the configured time zone; logging in on the day after
 * the last streak day extends the streak, a missed day starts it again at 1.
 */

/** Bonus in cents for the n-th consecutive day; day 7 and later pay the cap. */
export const STREAK_BONUS_CENTS = [100, 150, 200, 250, 300, 400, 500] as const;

export function streakBonusCents(day: number): number {
  if (day <= 0) return 0;
  return STREAK_BONUS_CENTS[Math.min(day, STREAK_BONUS_CENTS.length) - 1] ?? 0;
}

/** The calendar day (YYYY-MM-DD) of an instant in a time zone. */
export function localDay(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}

function dayNumber(day: string): number {
  return Math.round(Date.parse(`${day}T00:00:00Z`) / 86_400_000);
}

export interface StreakState {
  current: number;
  longest: number;
  lastDay: string | null;
}

export interface StreakAward {
  state: StreakState;
  awarded: boolean;
  bonusCents: number;
}

export function awardStreak(state: StreakState, today: string): StreakAward {
  if (state.lastDay === today) return { state, awarded: false, bonusCents: 0 };
  const consecutive = state.lastDay !== null && dayNumber(today) - dayNumber(state.lastDay) === 1;
  const current = consecutive ? state.current + 1 : 1;
  return {
    state: { current, longest: Math.max(state.longest, current), lastDay: today },
    awarded: true,
    bonusCents: streakBonusCents(current),
  };
}

/** The streak as it stands today: a streak whose last day is before yesterday has lapsed. */
export function currentStreak(state: StreakState, today: string): number {
  if (state.lastDay === null) return 0;
  return dayNumber(today) - dayNumber(state.lastDay) <= 1 ? state.current : 0;
}

/** The bonus the next login on a new day would pay. */
export function nextStreakBonus(state: StreakState, today: string): { day: number; bonusCents: number } {
  const live = currentStreak(state, today);
  const day = state.lastDay === today ? live + 1 : live + 1;
  return { day, bonusCents: streakBonusCents(day) };
}

/** A streak as the API shows it. */
export interface StreakView {
  current: number;
  longest: number;
  lastDay: string | null;
  awardedToday: boolean;
  nextBonus: { day: number; bonusCents: number; availableOn: 'today' | 'tomorrow' };
}

/** A user's streak as stored on their row. */
export function streakStateOf(user: UserRow): StreakState {
  return {
    current: user.streak_current,
    longest: user.streak_longest,
    lastDay: user.streak_last_day,
  };
}

/** What the account page shows of a streak on `today`. */
export function streakView(state: StreakState, today: string): StreakView {
  const next = nextStreakBonus(state, today);
  return {
    current: currentStreak(state, today),
    longest: state.longest,
    lastDay: state.lastDay,
    awardedToday: state.lastDay === today,
    nextBonus: {
      day: next.day,
      bonusCents: next.bonusCents,
      availableOn: state.lastDay === today ? 'tomorrow' : 'today',
    },
  };
}

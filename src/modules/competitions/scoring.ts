/**
 * How competitions are scored. Profit (P&L) of a set of trades is defined by PerformanceRepository: the cash
 * the trades moved plus the value of the shares they leave (payout once resolved, else the last traded price).
 */

export interface EntrantPerformance {
  userId: number;
  joinedAt: Date;
  trades: number;
  costCents: number;
  pnlCents: number;
}

export interface Standing extends EntrantPerformance {
  /** 1, 2, 3, ... for entrants with at least one trade in the tournament; null for the others. */
  rank: number | null;
  scoreBps: number;
}

/** Return on cost in basis points, rounded down: profit × 10000 / cost of the purchases (0 without any). */
export function returnBps(pnlCents: number, costCents: number): number {
  if (costCents <= 0) return 0;
  return Math.floor((pnlCents * 10_000) / costCents);
}

/**
 * Orders a tournament's entrants: by return, then by profit, then by who joined first (then by id, so the
 * order is total). Entrants without a trade have no return to rank and come last, unranked.
 */
export function rankEntrants(entrants: EntrantPerformance[]): Standing[] {
  const scored = entrants.map((entrant) => ({
    ...entrant,
    scoreBps: returnBps(entrant.pnlCents, entrant.costCents),
  }));
  const traded = scored.filter((entrant) => entrant.trades > 0);
  const idle = scored.filter((entrant) => entrant.trades === 0);
  traded.sort(
    (a, b) =>
      b.scoreBps - a.scoreBps ||
      b.pnlCents - a.pnlCents ||
      a.joinedAt.getTime() - b.joinedAt.getTime() ||
      a.userId - b.userId,
  );
  idle.sort((a, b) => a.joinedAt.getTime() - b.joinedAt.getTime() || a.userId - b.userId);
  return [
    ...traded.map((entrant, index) => ({ ...entrant, rank: index + 1 })),
    ...idle.map((entrant) => ({ ...entrant, rank: null })),
  ];
}

/** The prize of a rank: prizes[0] for 1st, prizes[1] for 2nd, ...; nothing beyond the list or unranked. */
export function prizeFor(rank: number | null, prizes: readonly number[]): number {
  if (rank === null) return 0;
  return prizes[rank - 1] ?? 0;
}

export type ChallengeOutcome = 'creator' | 'opponent' | 'draw';

/** Higher profit wins the head-to-head; equal profit (including no trades on either side) is a draw. */
export function challengeOutcome(creatorPnlCents: number, opponentPnlCents: number): ChallengeOutcome {
  if (creatorPnlCents > opponentPnlCents) return 'creator';
  if (opponentPnlCents > creatorPnlCents) return 'opponent';
  return 'draw';
}

import type { NewNotification } from '../notifications/repository.js';
import type { ChallengeRow } from './challenges-repository.js';

/** What each side of a settled challenge is told: won (and the pot), lost, or drawn (and the stake back). */
export function settledNotices(
  challenge: ChallengeRow,
  pnl: { creatorPnlCents: number; opponentPnlCents: number },
  winnerId: number | null,
): NewNotification[] {
  const pot = challenge.stake_cents * 2;
  const sides = [
    { userId: challenge.creator_id, mine: pnl.creatorPnlCents, theirs: pnl.opponentPnlCents },
    { userId: challenge.opponent_id as number, mine: pnl.opponentPnlCents, theirs: pnl.creatorPnlCents },
  ];
  return sides.map((side) => {
    const result = winnerId === null ? 'draw' : winnerId === side.userId ? 'won' : 'lost';
    const money =
      pot === 0
        ? ''
        : result === 'won'
          ? `; you take the pot of ${credits(pot)}`
          : result === 'draw'
            ? '; your stake is back'
            : '';
    return {
      userId: side.userId,
      type: 'challenge.settled',
      title:
        result === 'won'
          ? 'You won a challenge'
          : result === 'lost'
            ? 'You lost a challenge'
            : 'Challenge drawn',
      body: `Your profit ${credits(side.mine)} against ${credits(side.theirs)}${money}`,
      data: {
        code: challenge.code,
        challengeId: String(challenge.id),
        result,
        myPnlCents: side.mine,
        opponentPnlCents: side.theirs,
        payoutCents: result === 'won' ? pot : result === 'draw' ? challenge.stake_cents : 0,
      },
    };
  });
}

/** Cents as credits with two decimals, signed: -1.05. */
export function credits(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

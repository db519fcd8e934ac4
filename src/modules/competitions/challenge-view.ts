import type { ChallengeRow } from './challenges-repository.js';
import type { ChallengeStatus } from './tables.js';

/** A challenge as the API answers it. */
export interface ChallengeView {
  id: string;
  code: string;
  status: ChallengeStatus;
  event: { slug: string; title: string } | null;
  startsAt: string | null;
  endsAt: string | null;
  stakeCents: number;
  creator: { id: string; username: string };
  opponent: { id: string; username: string } | null;
  expiresAt: string;
  acceptedAt: string | null;
  settledAt: string | null;
  result: {
    creatorPnlCents: number;
    opponentPnlCents: number;
    winner: { id: string; username: string } | null;
  } | null;
  createdAt: string;
}

export function toChallengeView(row: ChallengeRow): ChallengeView {
  const creator = { id: String(row.creator_id), username: row.creator_username };
  const opponent =
    row.opponent_id !== null ? { id: String(row.opponent_id), username: row.opponent_username ?? '' } : null;
  return {
    id: String(row.id),
    code: row.code,
    status: row.status,
    event: row.event_slug !== null ? { slug: row.event_slug, title: row.event_title ?? '' } : null,
    startsAt: row.starts_at ? row.starts_at.toISOString() : null,
    endsAt: row.ends_at ? row.ends_at.toISOString() : null,
    stakeCents: Number(row.stake_cents),
    creator,
    opponent,
    expiresAt: row.expires_at.toISOString(),
    acceptedAt: row.accepted_at ? row.accepted_at.toISOString() : null,
    settledAt: row.settled_at ? row.settled_at.toISOString() : null,
    result:
      row.status === 'settled'
        ? {
            creatorPnlCents: Number(row.creator_pnl_cents ?? 0),
            opponentPnlCents: Number(row.opponent_pnl_cents ?? 0),
            winner:
              row.winner_id === null ? null : row.winner_id === row.creator_id ? creator : (opponent ?? null),
          }
        : null,
    createdAt: row.created_at.toISOString(),
  };
}

import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { Queryable, Tx } from '../../platform/db/types.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { decodeCursor, toPage } from '../../platform/http.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { NewNotification } from '../notifications/repository.js';
import type { NotificationsService } from '../notifications/service.js';
import type { People } from '../social/people.js';
import type { PerformanceRepository } from '../social/performance-repository.js';
import { credits, settledNotices } from './challenge-notices.js';
import { type ChallengeView, toChallengeView } from './challenge-view.js';
import type { ChallengeRow, ChallengesRepository } from './challenges-repository.js';
import {
  ChallengeForSomeoneElseError,
  ChallengeNotOpenError,
  EventNotOpenError,
  OwnChallengeError,
  StakeUnaffordableError,
} from './errors.js';
import { challengeOutcome } from './scoring.js';
import type { ChallengeStatus } from './tables.js';

/** Limits of a challenge, documented in the API and in docs/features.md. */
export const CHALLENGE_LIMITS = {
  maxStakeCents: 100_000,
  defaultExpiresInHours: 48,
  maxExpiresInHours: 168,
  maxWindowDays: 30,
} as const;

const JOB_BATCH = 20;
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export interface CreateChallengeInput {
  eventSlug?: string | undefined;
  startsAt?: string | undefined;
  endsAt?: string | undefined;
  stakeCents?: number | undefined;
  opponentUsername?: string | undefined;
  expiresInHours?: number | undefined;
}

/**
 * Head-to-head challenges. A challenge is played on one market (it ends when that market settles) or over a
 * time window on every market. Both sides' stakes are held in the house `stakes` account from creation and
 * acceptance until the result, so no stake can be spent twice; the winner takes the whole pot.
 */
export class ChallengesService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly challenges: ChallengesRepository,
    private readonly performance: PerformanceRepository,
    private readonly ledger: LedgerRepository,
    private readonly notifications: NotificationsService,
    private readonly people: People,
  ) {}

  async create(userId: number, input: CreateChallengeInput) {
    const stakeCents = input.stakeCents ?? 0;
    const hours = input.expiresInHours ?? CHALLENGE_LIMITS.defaultExpiresInHours;
    const now = Date.now();
    let expiresAt = new Date(now + hours * 3_600_000);
    const window = this.validateShape(input, now);
    if (window?.endsAt && window.endsAt < expiresAt) expiresAt = window.endsAt;

    const id = await this.db.transaction().execute(async (trx) => {
      let eventId: number | null = null;
      if (input.eventSlug !== undefined) {
        const event = await this.challenges.findEventBySlug(trx, input.eventSlug);
        if (!event) throw new NotFoundError('Event');
        if (event.status !== 'open') throw new EventNotOpenError();
        eventId = event.id;
      }
      let opponentId: number | null = null;
      if (input.opponentUsername !== undefined) {
        const opponent = await this.challenges.findUserByUsername(trx, input.opponentUsername);
        if (!opponent) throw new NotFoundError('User');
        if (opponent.id === userId) {
          throw new ValidationError('You cannot challenge yourself', [
            { field: 'body.opponentUsername', message: 'is you' },
          ]);
        }
        opponentId = opponent.id;
      }
      const code = await this.freeCode(trx);
      const id = await this.challenges.insert(trx, {
        code,
        creatorId: userId,
        opponentId,
        eventId,
        startsAt: window?.startsAt ?? null,
        endsAt: window?.endsAt ?? null,
        stakeCents,
        expiresAt,
      });
      await this.holdStake(trx, userId, id, stakeCents);
      if (opponentId !== null && (await this.people.accepts(trx, opponentId, 'competitions'))) {
        await this.notifications.notify(trx, {
          userId: opponentId,
          type: 'challenge.invited',
          title: 'You have been challenged',
          body: `You have a head-to-head challenge${stakeCents > 0 ? ` for ${credits(stakeCents)}` : ''}`,
          data: { code, challengeId: String(id) },
        });
      }
      return id;
    });
    return this.view(id);
  }

  /** Either an event, or a window (endsAt, optional startsAt); checked before anything is written. */
  private validateShape(input: CreateChallengeInput, now: number): { startsAt: Date; endsAt: Date } | null {
    const hasWindow = input.startsAt !== undefined || input.endsAt !== undefined;
    if ((input.eventSlug === undefined) === !hasWindow) {
      throw new ValidationError('Give either eventSlug or a time window (endsAt, optionally startsAt)', [
        {
          field: 'body.eventSlug',
          message: hasWindow ? 'cannot be combined with a window' : 'or endsAt is required',
        },
      ]);
    }
    if (!hasWindow) return null;
    if (input.endsAt === undefined) {
      throw new ValidationError('A window needs endsAt', [{ field: 'body.endsAt', message: 'is required' }]);
    }
    const startsAt = input.startsAt === undefined ? new Date(now) : new Date(input.startsAt);
    const endsAt = new Date(input.endsAt);
    if (endsAt.getTime() <= Math.max(now, startsAt.getTime())) {
      throw new ValidationError('endsAt must be in the future and after startsAt', [
        { field: 'body.endsAt', message: 'is not after now and startsAt' },
      ]);
    }
    if (endsAt.getTime() - Math.max(now, startsAt.getTime()) > CHALLENGE_LIMITS.maxWindowDays * 86_400_000) {
      throw new ValidationError(`A window lasts at most ${CHALLENGE_LIMITS.maxWindowDays} days`, [
        { field: 'body.endsAt', message: `is more than ${CHALLENGE_LIMITS.maxWindowDays} days away` },
      ]);
    }
    return { startsAt, endsAt };
  }

  async accept(userId: number, code: string) {
    const id = await this.db.transaction().execute((trx) => this.acceptIn(trx, userId, code));
    return this.view(id);
  }

  /** Accepts inside the caller's transaction (the registration of an invited user uses this). */
  async acceptIn(trx: Tx, userId: number, codeInput: string): Promise<number> {
    const challenge = await this.challenges.lockByCode(trx, normaliseCode(codeInput));
    if (!challenge) throw new NotFoundError('Challenge');
    const problem = whyNotAcceptable(challenge);
    if (problem) throw new ChallengeNotOpenError(problem);
    if (challenge.creator_id === userId) throw new OwnChallengeError();
    if (challenge.opponent_id !== null && challenge.opponent_id !== userId)
      throw new ChallengeForSomeoneElseError();
    await this.holdStake(trx, userId, challenge.id, challenge.stake_cents);
    await this.challenges.markAccepted(trx, challenge.id, userId);
    const opponent = await this.challenges.findById(trx, challenge.id);
    await this.notifyIfWanted(trx, {
      userId: challenge.creator_id,
      type: 'challenge.accepted',
      title: 'Challenge accepted',
      body: `${opponent?.opponent_username ?? 'Your opponent'} accepted your challenge`,
      data: { code: challenge.code, challengeId: String(challenge.id) },
    });
    return challenge.id;
  }

  /** Whether a new account may register with this invite code: an open challenge addressed to anyone. */
  async inviteAcceptable(trx: Queryable, codeInput: string): Promise<boolean> {
    const challenge = await this.challenges.findByCode(trx, normaliseCode(codeInput));
    return challenge !== undefined && challenge.opponent_id === null && whyNotAcceptable(challenge) === null;
  }

  async get(code: string) {
    const row = await this.challenges.findByCode(this.db, normaliseCode(code));
    if (!row) throw new NotFoundError('Challenge');
    return toChallengeView(row);
  }

  async list(
    userId: number,
    filter: { status: ChallengeStatus | null; limit: number; cursor?: string | undefined },
  ) {
    const cursor = decodeCursor(filter.cursor, 1);
    const rows = await this.challenges.listForUser(this.db, userId, {
      status: filter.status,
      beforeId: cursor ? Number(cursor[0]) : null,
      limit: filter.limit,
    });
    return toPage(rows, filter.limit, toChallengeView, (row) => [row.id]);
  }

  /** Job: open challenges nobody can accept any more are expired and the creator's stake is returned. */
  async expireUnaccepted(): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const due = await this.challenges.claimUnacceptable(trx, JOB_BATCH);
      for (const challenge of due) {
        await this.releaseStake(trx, challenge, [
          { userId: challenge.creator_id, amount: challenge.stake_cents },
        ]);
        await this.challenges.markExpired(trx, challenge.id);
        await this.notifyIfWanted(trx, {
          userId: challenge.creator_id,
          type: 'challenge.expired',
          title: 'Challenge expired',
          body: `Nobody accepted your challenge ${challenge.code}${challenge.stake_cents > 0 ? '; your stake is back' : ''}`,
          data: { code: challenge.code, challengeId: String(challenge.id) },
        });
      }
      return due.length;
    });
  }

  /**
   * Job: scores accepted challenges that are over. Each side's score is the profit of their trades made from
   * acceptance (or the window's start, if later) to the end: in the challenge's market, or in any market for
   * a window. The higher profit takes the pot; a tie returns both stakes.
   */
  async settleFinished(): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const due = await this.challenges.claimFinished(trx, JOB_BATCH);
      for (const challenge of due) await this.settle(trx, challenge);
      return due.length;
    });
  }

  private async settle(trx: Tx, challenge: ChallengeRow): Promise<void> {
    const opponentId = challenge.opponent_id as number;
    const acceptedAt = challenge.accepted_at as Date;
    const from = challenge.starts_at && challenge.starts_at > acceptedAt ? challenge.starts_at : acceptedAt;
    const to = challenge.ends_at ?? new Date();
    const rows = await this.performance.byUser(trx, {
      from,
      to,
      userIds: [challenge.creator_id, opponentId],
      ...(challenge.event_id !== null ? { eventIds: [challenge.event_id] } : {}),
    });
    const pnlOf = (userId: number) => Number(rows.find((row) => row.user_id === userId)?.pnl_cents ?? 0);
    const creatorPnlCents = pnlOf(challenge.creator_id);
    const opponentPnlCents = pnlOf(opponentId);
    const outcome = challengeOutcome(creatorPnlCents, opponentPnlCents);
    const winnerId =
      outcome === 'creator' ? challenge.creator_id : outcome === 'opponent' ? opponentId : null;
    const pot = challenge.stake_cents * 2;
    await this.releaseStake(
      trx,
      challenge,
      winnerId === null
        ? [
            { userId: challenge.creator_id, amount: challenge.stake_cents },
            { userId: opponentId, amount: challenge.stake_cents },
          ]
        : [{ userId: winnerId, amount: pot }],
    );
    await this.challenges.markSettled(trx, challenge.id, { creatorPnlCents, opponentPnlCents, winnerId });
    const notices = settledNotices(challenge, { creatorPnlCents, opponentPnlCents }, winnerId);
    for (const notice of notices) await this.notifyIfWanted(trx, notice);
  }

  private async notifyIfWanted(trx: Tx, notice: NewNotification): Promise<void> {
    if (await this.people.accepts(trx, notice.userId, 'competitions'))
      await this.notifications.notify(trx, notice);
  }

  private async holdStake(trx: Tx, userId: number, challengeId: number, stakeCents: number): Promise<void> {
    if (stakeCents === 0) return;
    const available = await this.ledger.spendableCash(trx, userId);
    if (available < stakeCents) throw new StakeUnaffordableError(stakeCents, available);
    await this.ledger.post(trx, {
      kind: 'challenge_stake',
      memo: 'Stake held for a head-to-head challenge',
      userId,
      ref: { type: 'challenge', id: challengeId },
      postings: [
        { account: { kind: 'cash', userId }, amount: -stakeCents },
        { account: { kind: 'stakes' }, amount: stakeCents },
      ],
    });
  }

  private async releaseStake(
    trx: Tx,
    challenge: ChallengeRow,
    payments: { userId: number; amount: number }[],
  ): Promise<void> {
    for (const payment of payments) {
      if (payment.amount === 0) continue;
      await this.ledger.post(trx, {
        kind: 'challenge_payout',
        memo: `Challenge ${challenge.code}`,
        userId: payment.userId,
        ref: { type: 'challenge', id: challenge.id },
        postings: [
          { account: { kind: 'stakes' }, amount: -payment.amount },
          { account: { kind: 'cash', userId: payment.userId }, amount: payment.amount },
        ],
      });
    }
  }

  private async freeCode(trx: Queryable): Promise<string> {
    for (;;) {
      const code = Array.from(randomBytes(8), (b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('');
      if (!(await this.challenges.codeTaken(trx, code))) return code;
    }
  }

  private async view(id: number): Promise<ChallengeView> {
    const row = await this.challenges.findById(this.db, id);
    if (!row) throw new NotFoundError('Challenge');
    return toChallengeView(row);
  }
}

/** Why an open challenge cannot be accepted now, or null when it can. */
function whyNotAcceptable(challenge: ChallengeRow): string | null {
  if (challenge.status !== 'open') return `it is ${challenge.status}`;
  const now = Date.now();
  if (challenge.expires_at.getTime() <= now) return 'it has expired';
  if (challenge.ends_at && challenge.ends_at.getTime() <= now) return 'its window is over';
  if (challenge.event_id !== null && challenge.event_status !== 'open') return 'its market is no longer open';
  return null;
}

function normaliseCode(code: string): string {
  return code.trim().toUpperCase();
}

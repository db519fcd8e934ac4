import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { JobRunner } from '../../platform/jobs.js';
import type { AccountsService } from '../accounts/service.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { NotificationsService } from '../notifications/service.js';
import type { SocialModule } from '../social/module.js';
import { ChallengesService } from './challenges.js';
import { ChallengesRepository } from './challenges-repository.js';
import { TournamentsService } from './tournaments.js';
import { TournamentsRepository } from './tournaments-repository.js';

export { competitionsRoutes } from './routes.js';

export const COMPETITION_JOBS = {
  expireChallenges: 'challenges.expire',
  settleChallenges: 'challenges.settle',
  finishTournaments: 'tournaments.finish',
} as const;

/**
 * Challenges and tournaments, their background jobs, and registration with a challenge's invite code: the
 * new account accepts that challenge in its registration transaction.
 */
export function createCompetitions(deps: {
  db: Kysely<DB>;
  ledger: LedgerRepository;
  notifications: NotificationsService;
  social: SocialModule;
  accounts: AccountsService;
  jobs: JobRunner;
}) {
  const { db, ledger, notifications, accounts, jobs } = deps;
  const { performance, people } = deps.social;
  const challenges = new ChallengesService(
    db,
    new ChallengesRepository(),
    performance,
    ledger,
    notifications,
    people,
  );
  const tournaments = new TournamentsService(
    db,
    new TournamentsRepository(),
    performance,
    ledger,
    notifications,
    people,
  );
  accounts.setInviteCheck((trx, code) => challenges.inviteAcceptable(trx, code));
  accounts.onRegistered(async (trx, user, input) => {
    if (input.inviteCode !== undefined) await challenges.acceptIn(trx, user.id, input.inviteCode);
  });
  jobs.register(COMPETITION_JOBS.expireChallenges, () => challenges.expireUnaccepted());
  jobs.register(COMPETITION_JOBS.settleChallenges, () => challenges.settleFinished());
  jobs.register(COMPETITION_JOBS.finishTournaments, () => tournaments.finishDue());
  return { challenges, tournaments };
}

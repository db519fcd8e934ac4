import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { NotFoundError } from '../../platform/errors.js';
import type { AccountsRepository } from '../accounts/repository.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { NotificationsService } from '../notifications/service.js';
import type { ReferralRepository } from './referral-repository.js';

export const REFERRAL_REWARD_JOB = 'gamification.referral-rewards';

/** How many newly qualified referrals one job pass pays. */
const REWARD_BATCH = 100;

export interface ReferralSettings {
  publicUrl: string;
  referralRewardCents: number;
}

export interface ReferralView {
  code: string;
  link: string;
  referredCount: number;
  rewardedCount: number;
  totalEarnedCents: number;
  rewardCents: number;
}

/**
 * Referrals: registration links a new user to their referrer; when that user makes a first trade, a
 * background job pays the referrer once, from house `bonus` through the ledger, and tells them.
 */
export class ReferralService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly referrals: ReferralRepository,
    private readonly accounts: AccountsRepository,
    private readonly ledger: LedgerRepository,
    private readonly notifications: NotificationsService,
    private readonly settings: ReferralSettings,
  ) {}

  async referral(userId: number): Promise<ReferralView> {
    const user = await this.accounts.findUserById(this.db, userId);
    if (!user) throw new NotFoundError('User');
    const summary = await this.referrals.summary(this.db, userId);
    // Appended rather than resolved, so a PUBLIC_URL with a path prefix keeps it.
    const link = `${this.settings.publicUrl.replace(/\/+$/, '')}/register?ref=${encodeURIComponent(user.referral_code)}`;
    return {
      code: user.referral_code,
      link,
      ...summary,
      rewardCents: this.settings.referralRewardCents,
    };
  }

  /** Pays the referrers of users who have traded; the unique row per referred user makes it once-only. */
  async rewardQualifiedReferrals(): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const due = await this.referrals.claimDue(trx, REWARD_BATCH);
      const amountCents = this.settings.referralRewardCents;
      let paid = 0;
      for (const referral of due) {
        const rewardId = await this.referrals.insertReward(trx, { ...referral, amountCents });
        if (rewardId === null) continue;
        paid += 1;
        if (amountCents > 0) {
          await this.ledger.post(trx, {
            kind: 'referral_reward',
            memo: `Referral reward: ${referral.referredUsername} made a first trade`,
            userId: referral.referrerId,
            ref: { type: 'referral_reward', id: rewardId },
            postings: [
              { account: { kind: 'bonus' }, amount: -amountCents },
              { account: { kind: 'cash', userId: referral.referrerId }, amount: amountCents },
            ],
          });
        }
        await this.notifications.notify(trx, {
          userId: referral.referrerId,
          type: 'referral.rewarded',
          title: 'Referral reward',
          body:
            amountCents > 0
              ? `${referral.referredUsername} made their first trade: you earned ${formatCents(amountCents)}.`
              : `${referral.referredUsername}, whom you referred, made their first trade.`,
          data: { referredUserId: String(referral.referredUserId), amountCents },
        });
      }
      return paid;
    });
  }
}

function formatCents(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';
import type { Mailer } from '../../platform/mail.js';
import type { AccountsRepository } from './repository.js';
import { NEW_SIGN_IN_DAYS, type NewSignIn } from './security-log.js';

/** The feed item of a new sign-in. */
export const NEW_SIGN_IN_NOTIFICATION = 'security.new_login';

/** Where a feed item is written (the notifications area). */
export interface FeedWriter {
  notify(
    db: Queryable,
    item: { userId: number; type: string; title: string; body: string; data?: Record<string, unknown> },
  ): Promise<void>;
}

export interface SignInAlertsDependencies {
  db: Kysely<DB>;
  accounts: AccountsRepository;
  feed: FeedWriter;
  mailer: Mailer | null;
  /** Whether the user wants to hear of new sign-ins (on unless they turned it off). */
  wants: (userId: number) => Promise<boolean>;
  publicUrl: string;
  log: Pick<FastifyBaseLogger, 'error'>;
}

/**
 * Tells the owner of an account of a sign-in from an address and browser it has not used for NEW_SIGN_IN_DAYS: a
 * feed item, and a mail when mail is configured and the account's address is proven. The mail leaves after the
 * answer; one that cannot be sent is logged.
 */
export class SignInAlerts {
  constructor(private readonly deps: SignInAlertsDependencies) {}

  async announce(signIn: NewSignIn): Promise<void> {
    if (!(await this.deps.wants(signIn.userId))) return;
    const where = describe(signIn);
    const item = {
      userId: signIn.userId,
      type: NEW_SIGN_IN_NOTIFICATION,
      title: 'New sign-in to your account',
      body: `Signed in ${where}. If this was not you, change your password and end that session.`,
      data: {
        address: signIn.address,
        userAgent: signIn.userAgent,
        method: signIn.method,
        at: signIn.at.toISOString(),
      },
    };
    await this.deps.db.transaction().execute((trx) => this.deps.feed.notify(trx, item));
    const user = await this.deps.accounts.findUserById(this.deps.db, signIn.userId);
    if (!this.deps.mailer || !user?.email_verified_at) return;
    void this.deps.mailer
      .send({ to: user.email, ...this.message(user.username, where, signIn.at) })
      .catch((error: unknown) => this.deps.log.error({ err: error }, 'a new sign-in mail could not be sent'));
  }

  private message(username: string, where: string, at: Date) {
    const account = `${this.deps.publicUrl.replace(/\/$/, '')}/account`;
    return {
      subject: 'New sign-in to your account',
      text:
        `Hello ${username},\n\nYour account was signed in ${where} at ${at.toISOString()}, from an address and ` +
        `browser it has not used for ${NEW_SIGN_IN_DAYS} days.\n\nIf it was you, there is nothing to do. If it ` +
        `was not, change your password and end the session at ${account}, where you can also add a second ` +
        'factor and turn these messages off.\n',
    };
  }
}

function describe(signIn: NewSignIn): string {
  const from = signIn.address ? `from ${signIn.address}` : 'from an unknown address';
  return signIn.userAgent ? `${from} with ${signIn.userAgent.slice(0, 200)}` : from;
}

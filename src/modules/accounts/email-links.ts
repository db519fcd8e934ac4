import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { hashSecret, newSecret } from '../../platform/auth.js';
import type { DB, UserRow } from '../../platform/db/schema.js';
import {
  ConflictError,
  LinkInvalidError,
  NotFoundError,
  ProviderNotConfiguredError,
} from '../../platform/errors.js';
import type { Mailer } from '../../platform/mail.js';
import { hashPassword } from '../../platform/passwords.js';
import type { CredentialChanges } from './credentials.js';
import type { LoginThrottle, SignInAddress } from './login-throttle.js';
import type { AccountsRepository } from './repository.js';
import type { SignInRepository } from './sign-in-repository.js';
import type { EmailLinkPurpose } from './tables.js';

const LINK_PREFIX = 'pmx_link_';
/** How long a link works: a day to prove an address, an hour to reset a password. */
const LIFETIME_MS: Record<EmailLinkPurpose, number> = { verify: 24 * 3_600_000, reset: 3_600_000 };
/** One link of a kind per account in this many seconds, so that nobody can flood a mailbox through us. */
const RESEND_AFTER_SECONDS = 60;

export interface EmailLinkSettings {
  publicUrl: string;
}

/** Checks a new password before it is stored (strength, by the account's own details). */
export type PasswordCheck = (password: string, user: UserRow) => Promise<void>;

/**
 * Proving addresses and resetting passwords by mail. Links carry a 256-bit token in the URL's fragment (which
 * browsers send to no server, so it never lands in access logs); only its SHA-256 is stored, and it works once,
 * for a bounded time. Without a mailer nothing is proven: the service says so at start and in `/api/flags`.
 */
export class EmailLinks {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly repositories: { accounts: AccountsRepository; signIn: SignInRepository },
    private readonly mailer: Mailer | null,
    private readonly credentials: CredentialChanges,
    private readonly throttle: LoginThrottle,
    private readonly settings: EmailLinkSettings,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Whether addresses are proven at all (a mailer is configured). */
  get verifying(): boolean {
    return this.mailer !== null;
  }

  /** Sends the link proving a new account's address; a failed send is logged, and the user may ask again. */
  async afterRegistration(user: UserRow): Promise<void> {
    if (!this.mailer) return;
    await this.send(user, 'verify').catch((error: unknown) => this.logFailure(error, 'verify'));
  }

  /** Sends the link again: 409 when the address is proven already, 503 without a mailer. */
  async resendVerification(userId: number): Promise<void> {
    const user = await this.repositories.accounts.findUserById(this.db, userId);
    if (!user) throw new NotFoundError('User');
    if (user.email_verified_at !== null)
      throw new ConflictError('EMAIL_ALREADY_VERIFIED', 'This address is verified already');
    this.requireMailer();
    if (await this.repositories.signIn.sentWithin(this.db, userId, 'verify', RESEND_AFTER_SECONDS)) return;
    await this.send(user, 'verify');
  }

  /** Proves the address the link went to, once; the user whose address it is. */
  async verify(token: string): Promise<number> {
    const userId = await this.db.transaction().execute(async (trx) => {
      const link = await this.repositories.signIn.useLink(trx, hashSecret(token), 'verify');
      if (!link || !(await this.repositories.signIn.markVerified(trx, link.userId, link.email)))
        throw new LinkInvalidError();
      await this.credentials.announceCredentialChange(trx, { userId: link.userId });
      return link.userId;
    });
    this.credentials.forgetCredentials({ userId });
    return userId;
  }

  /**
   * Mails a reset link when the address belongs to an account. Answered the same either way and at once: the
   * sending happens after the answer, so neither the answer nor its timing says whether the address is registered.
   */
  requestReset(email: string): void {
    this.requireMailer();
    void this.mailResetLink(email.trim().toLowerCase()).catch((error: unknown) =>
      this.logFailure(error, 'reset'),
    );
  }

  private async mailResetLink(email: string): Promise<void> {
    const user = await this.repositories.accounts.findUserByEmail(this.db, email);
    if (!user || (await this.repositories.signIn.sentWithin(this.db, user.id, 'reset', RESEND_AFTER_SECONDS)))
      return;
    await this.send(user, 'reset');
  }

  /**
   * Sets a new password with a reset link, once. Every session ends (whoever had one, the owner has taken the
   * account back) and the link proves the address too; the address resetting becomes one the account is known
   * to sign in from. Returns how many sessions ended.
   */
  async resetPassword(token: string, password: string, check: PasswordCheck, from: SignInAddress) {
    let ended = 0;
    const user = await this.db.transaction().execute(async (trx) => {
      const link = await this.repositories.signIn.useLink(trx, hashSecret(token), 'reset');
      const owner = link ? await this.repositories.accounts.findUserById(trx, link.userId) : undefined;
      if (!link || !owner || owner.email !== link.email) throw new LinkInvalidError();
      await check(password, owner);
      await this.repositories.accounts.setPasswordHash(trx, owner.id, await hashPassword(password));
      ended = await this.repositories.accounts.revokeOtherSessions(trx, owner.id, null);
      await this.repositories.signIn.markVerified(trx, owner.id, owner.email);
      await this.credentials.announceCredentialChange(trx, { userId: owner.id });
      return owner;
    });
    this.credentials.forgetCredentials({ userId: user.id });
    await this.throttle.forgetAccount(user.email);
    await this.throttle.succeeded(user.id, user.email, from);
    return { endedSessions: ended };
  }

  private async send(user: UserRow, purpose: EmailLinkPurpose): Promise<void> {
    const mailer = this.requireMailer();
    const token = newSecret(LINK_PREFIX);
    await this.repositories.signIn.insertLink(this.db, {
      userId: user.id,
      purpose,
      email: user.email,
      tokenHash: hashSecret(token),
      expiresAt: new Date(Date.now() + LIFETIME_MS[purpose]),
    });
    const page = purpose === 'verify' ? 'verify-email' : 'reset-password';
    const link = `${this.settings.publicUrl.replace(/\/$/, '')}/${page}#token=${token}`;
    await mailer.send({ to: user.email, ...messageFor(purpose, link, user.username) });
  }

  private requireMailer(): Mailer {
    if (!this.mailer) throw new ProviderNotConfiguredError('mail (SMTP_URL)');
    return this.mailer;
  }

  private logFailure(error: unknown, purpose: EmailLinkPurpose): void {
    this.log.error({ err: error, purpose }, 'a mail with a link could not be sent');
  }
}

function messageFor(purpose: EmailLinkPurpose, link: string, username: string) {
  if (purpose === 'verify') {
    return {
      subject: 'Confirm your email address',
      text:
        `Hello ${username},\n\nConfirm that this address is yours by opening this link within a day:\n\n${link}\n\n` +
        'If you did not create an account, ignore this message: nothing happens without the link.\n',
    };
  }
  return {
    subject: 'Reset your password',
    text:
      `Hello ${username},\n\nSomeone asked to reset the password of your account. To choose a new one, open this ` +
      `link within an hour (it works once):\n\n${link}\n\nIf it was not you, ignore this message: your password ` +
      'stays as it is.\n',
  };
}

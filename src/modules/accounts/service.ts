import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { type AuthUser, hashSecret, newSecret, SESSION_PREFIX } from '../../platform/auth.js';
import type { Database } from '../../platform/db/database.js';
import type { DB, UserRow } from '../../platform/db/schema.js';
import { isUniqueViolation, type Tx } from '../../platform/db/types.js';
import {
  ConflictError,
  InvalidCredentialsError,
  NotFoundError,
  ValidationError,
  WeakPasswordError,
} from '../../platform/errors.js';
import { type PasswordStrength, passwordStrength } from '../../platform/password-strength.js';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../../platform/passwords.js';
import type { LedgerRepository } from '../ledger/repository.js';
import { ApiKeysService } from './api-keys.js';
import { CredentialAccess } from './credential-access.js';
import type { CredentialChange, CredentialChanges } from './credentials.js';
import type { LoginThrottle, SignInAddress } from './login-throttle.js';
import type { AccountsRepository, CredentialOrigin, SessionRow } from './repository.js';
import { awardStreak, localDay, type StreakView, streakStateOf, streakView } from './streak.js';

export type { StreakView } from './streak.js';

import { isReservedUsername } from './usernames.js';

export interface AccountsSettings {
  startingBalanceCents: number;
  sessionTtlHours: number;
  authCacheTtlMs: number;
  streakTimezone: string;
}

export interface RegisterInput {
  email: string;
  password: string;
  username?: string | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
  referralCode?: string | undefined;
  inviteCode?: string | undefined;
}

/** Something that happens in the registration transaction once the user exists (referral, challenge invite). */
export type RegistrationHook = (trx: Tx, user: UserRow, input: RegisterInput) => Promise<void>;

export { MAX_API_KEYS } from './api-keys.js';

export class AccountsService implements CredentialChanges {
  private readonly registrationHooks: RegistrationHook[] = [];
  private inviteCheck: ((trx: Tx, code: string) => Promise<boolean>) | null = null;
  private loginChallenge: ((user: UserRow) => Promise<LoginChallenge | null>) | null = null;
  /** Who a bearer token is, and every instance told of a credential's change (credential-access.ts). */
  readonly access: CredentialAccess;
  /** The user's API keys (api-keys.ts). */
  readonly keys: ApiKeysService;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly accounts: AccountsRepository,
    private readonly ledger: LedgerRepository,
    private readonly settings: AccountsSettings,
    private readonly throttle: LoginThrottle,
  ) {
    this.access = new CredentialAccess(db, accounts, settings.authCacheTtlMs);
    this.keys = new ApiKeysService(db, accounts, (work) => this.access.change(work));
  }

  /** Lets second factors turn a login into two steps: a challenge to answer, or null to sign in at once. */
  setLoginChallenge(challenge: (user: UserRow) => Promise<LoginChallenge | null>): void {
    this.loginChallenge = challenge;
  }

  onRegistered(hook: RegistrationHook): void {
    this.registrationHooks.push(hook);
  }

  /** Lets the challenges area say whether an invite code can still be accepted. */
  setInviteCheck(check: (trx: Tx, code: string) => Promise<boolean>): void {
    this.inviteCheck = check;
  }

  /**
   * Opens an account. The password must be hard to guess (400 WEAK_PASSWORD, judged with the account's own email
   * and names), the username not one reserved for the house or a look-alike of one (409 USERNAME_RESERVED). The
   * address registering becomes one the account is known to sign in from.
   */
  async register(
    input: RegisterInput,
    origin: CredentialOrigin | null = null,
    from: SignInAddress | null = null,
  ): Promise<{ user: UserRow; token: string; expiresAt: Date }> {
    const email = input.email.trim().toLowerCase();
    requireStrongPassword('password', await passwordStrength(input.password, ownDetails(email, input)));
    if (input.username !== undefined && isReservedUsername(input.username)) {
      throw new ConflictError('USERNAME_RESERVED', 'This username is reserved');
    }
    const passwordHash = await hashPassword(input.password);
    const registered = await this.openAccount(input, email, passwordHash, origin);
    if (from) await this.throttle.remember(registered.user.id, from);
    return registered;
  }

  /** How hard a password is to guess for this account (its own details count as guessed). */
  passwordStrength(
    password: string,
    details: { email?: string; username?: string; firstName?: string; lastName?: string },
  ) {
    return passwordStrength(password, ownDetails(details.email ?? null, details));
  }

  private openAccount(
    input: RegisterInput,
    email: string,
    passwordHash: string,
    origin: CredentialOrigin | null,
  ): Promise<{ user: UserRow; token: string; expiresAt: Date }> {
    return this.db.transaction().execute(async (trx) => {
      let referrer: UserRow | undefined;
      if (input.referralCode !== undefined) {
        referrer = await this.accounts.findUserByReferralCode(trx, input.referralCode.trim().toUpperCase());
        if (!referrer)
          throw new ValidationError('Unknown referral code', [fieldProblem('referralCode', 'is unknown')]);
        if (referrer.email === email) {
          throw new ValidationError('You cannot refer yourself', [
            fieldProblem('referralCode', 'is your own'),
          ]);
        }
      }
      if (input.inviteCode !== undefined && !(await this.inviteCheck?.(trx, input.inviteCode))) {
        throw new ValidationError('Unknown or expired invite code', [
          fieldProblem('inviteCode', 'is unknown or expired'),
        ]);
      }
      if (await this.accounts.findUserByEmail(trx, email)) {
        throw new ConflictError('EMAIL_TAKEN', 'An account with this email already exists');
      }
      const username = input.username ?? (await this.freeUsername(trx, email));
      if (input.username !== undefined && (await this.accounts.usernameTaken(trx, username))) {
        throw new ConflictError('USERNAME_TAKEN', 'This username is taken');
      }
      let user: UserRow;
      try {
        user = await this.accounts.insertUser(trx, {
          email,
          username,
          password_hash: passwordHash,
          first_name: input.firstName ?? null,
          last_name: input.lastName ?? null,
          role: 'user',
          referral_code: newReferralCode(),
          referred_by: referrer?.id ?? null,
        });
      } catch (error) {
        if (isUniqueViolation(error))
          throw new ConflictError('EMAIL_TAKEN', 'An account with this email already exists');
        throw error;
      }
      await this.ledger.openUserAccounts(trx, user.id);
      if (this.settings.startingBalanceCents > 0) {
        await this.ledger.post(trx, {
          kind: 'signup_credit',
          memo: 'Starting balance',
          userId: user.id,
          postings: [
            { account: { kind: 'bonus' }, amount: -this.settings.startingBalanceCents },
            { account: { kind: 'cash', userId: user.id }, amount: this.settings.startingBalanceCents },
          ],
        });
      }
      for (const hook of this.registrationHooks) await hook(trx, user, input);
      const session = await this.openSession(trx, user.id, origin);
      return { user, ...session };
    });
  }

  /**
   * Signs in, slowed down by the login throttle (see LoginThrottle): 429 while this attempt must wait, one generic
   * 401 for an unknown email and a wrong password alike.
   */
  async login(
    emailInput: string,
    password: string,
    from: SignInAddress,
    userAgent?: string,
  ): Promise<LoggedIn | { challenge: LoginChallenge }> {
    const email = emailInput.trim().toLowerCase();
    const user = await this.accounts.findUserByEmail(this.db, email);
    await this.throttle.check(email, user?.id ?? null, from);
    const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_PASSWORD_HASH);
    if (!user || !ok) {
      await this.throttle.failed(email, from);
      throw new InvalidCredentialsError();
    }
    await this.throttle.succeeded(user.id, email, from);
    // An account with a second factor signs in in two steps (second-factors.ts).
    const challenge = this.loginChallenge ? await this.loginChallenge(user) : null;
    if (challenge) return { challenge };
    return this.completeLogin(user, { address: from.ip, userAgent });
  }

  /** The session of a login whose proofs are all given, and the daily streak it collects. */
  async completeLogin(user: UserRow, origin: CredentialOrigin): Promise<LoggedIn> {
    return this.db.transaction().execute(async (trx) => {
      const locked = (await this.accounts.lockUser(trx, user.id)) ?? user;
      const today = localDay(new Date(), this.settings.streakTimezone);
      const award = awardStreak(streakStateOf(locked), today);
      if (award.awarded) {
        await this.accounts.setStreak(trx, user.id, { ...award.state, lastDay: today });
        if (award.bonusCents > 0) {
          await this.ledger.post(trx, {
            kind: 'streak_bonus',
            memo: `Daily streak bonus, day ${award.state.current}`,
            userId: user.id,
            postings: [
              { account: { kind: 'bonus' }, amount: -award.bonusCents },
              { account: { kind: 'cash', userId: user.id }, amount: award.bonusCents },
            ],
          });
        }
      }
      const session = await this.openSession(trx, user.id, origin);
      return {
        user: locked,
        ...session,
        streak: { ...streakView(award.state, today), awardedCents: award.bonusCents },
      };
    });
  }

  async logout(auth: AuthUser): Promise<void> {
    if (auth.credential.kind !== 'session') return;
    const sessionId = auth.credential.id;
    await this.access.change(async (trx) => {
      const tokenHash = await this.accounts.revokeSession(trx, sessionId);
      return tokenHash === null ? null : { tokenHash };
    });
  }

  /**
   * Changes the password after checking the current one (a wrong one counts as a failed login for the account, so
   * it cannot be guessed through a stolen session), and ends every other session of the account: the one making
   * the change stays signed in; a change made with an API key ends every session.
   */
  async changePassword(auth: AuthUser, current: string, next: string, from: SignInAddress): Promise<number> {
    const user = await this.confirmPassword(auth.userId, current, from, 'currentPassword');
    if (current === next) {
      throw new ValidationError('The new password is the same as the current one', [
        fieldProblem('newPassword', 'is the same as the current one'),
      ]);
    }
    await this.requireStrongPassword(next, user, 'newPassword');
    const passwordHash = await hashPassword(next);
    const keep = auth.credential.kind === 'session' ? auth.credential.id : null;
    let ended = 0;
    await this.access.change(async (trx) => {
      await this.accounts.setPasswordHash(trx, auth.userId, passwordHash);
      ended = await this.accounts.revokeOtherSessions(trx, auth.userId, keep);
      return { userId: auth.userId };
    });
    return ended;
  }

  /**
   * Checks the account's current password, sent in the body's `field`: 400 naming the field when it is missing or
   * wrong. A wrong one counts as a failed login (429 once repeated), so a stolen session cannot guess it.
   */
  async confirmPassword(
    userId: number,
    password: string | undefined,
    from: SignInAddress,
    field = 'password',
  ): Promise<UserRow> {
    const user = await this.getUser(userId);
    if (password === undefined)
      throw new ValidationError('This needs the current password', [fieldProblem(field, 'is required')]);
    await this.throttle.check(user.email, user.id, from);
    if (!(await verifyPassword(password, user.password_hash))) {
      await this.throttle.failed(user.email, from);
      throw new ValidationError('The current password is not correct', [
        fieldProblem(field, 'is not correct'),
      ]);
    }
    return user;
  }

  /** The account's live sessions, the one making the request marked. */
  async listSessions(auth: AuthUser): Promise<(SessionRow & { current: boolean })[]> {
    const rows = await this.accounts.listSessions(this.db, auth.userId);
    const currentId = auth.credential.kind === 'session' ? auth.credential.id : null;
    return rows.map((row) => ({ ...row, current: row.id === currentId }));
  }

  /** Ends one of the account's sessions (the current one included: that is a log-out). */
  async revokeSession(userId: number, sessionId: number): Promise<void> {
    const change = await this.access.change(async (trx) => {
      const tokenHash = await this.accounts.revokeSessionOf(trx, userId, sessionId);
      return tokenHash === null ? null : { tokenHash };
    });
    if (!change) throw new NotFoundError('Session');
  }

  /** Refuses with 400 WEAK_PASSWORD a new password that is easy to guess for this account. */
  async requireStrongPassword(password: string, user: UserRow, field = 'password'): Promise<void> {
    const details = { username: user.username, firstName: user.first_name, lastName: user.last_name };
    requireStrongPassword(field, await passwordStrength(password, ownDetails(user.email, details)));
  }

  async getUser(userId: number): Promise<UserRow> {
    const user = await this.accounts.findUserById(this.db, userId);
    if (!user) throw new NotFoundError('User');
    return user;
  }

  async balances(userId: number) {
    return this.ledger.userBalances(this.db, userId);
  }

  async streak(userId: number): Promise<StreakView> {
    const user = await this.getUser(userId);
    return streakView(streakStateOf(user), localDay(new Date(), this.settings.streakTimezone));
  }

  resolveCredential(token: string, address?: string): Promise<AuthUser | null> {
    return this.access.resolve(token, address);
  }

  announceCredentialChange(trx: Tx, change: CredentialChange): Promise<void> {
    return this.access.announceCredentialChange(trx, change);
  }

  forgetCredentials(change: CredentialChange): void {
    this.access.forgetCredentials(change);
  }

  watchCredentialChanges(database: Pick<Database, 'listen'>): Promise<void> {
    return this.access.watch(database);
  }

  stopWatchingCredentialChanges(): Promise<void> {
    return this.access.stopWatching();
  }

  private async openSession(
    trx: Tx,
    userId: number,
    origin: CredentialOrigin | null,
  ): Promise<{ token: string; expiresAt: Date }> {
    const token = newSecret(SESSION_PREFIX);
    const expiresAt = new Date(Date.now() + this.settings.sessionTtlHours * 3_600_000);
    // Its creation counts as its first use, so the list of sessions says where each came from at once.
    await this.accounts.insertSession(trx, { userId, tokenHash: hashSecret(token), expiresAt, origin });
    return { token, expiresAt };
  }

  private async freeUsername(trx: Tx, email: string): Promise<string> {
    const base =
      (email.split('@')[0] ?? 'trader')
        .toLowerCase()
        .replace(/[^a-z0-9_]/g, '')
        .slice(0, 20) || 'trader';
    const padded = isReservedUsername(base) ? 'trader' : base.length >= 3 ? base : `${base}_trader`;
    if (padded !== 'trader' && !(await this.accounts.usernameTaken(trx, padded))) return padded;
    for (;;) {
      const candidate = `${padded}${randomBytes(2).readUInt16BE(0) % 10000}`;
      if (!(await this.accounts.usernameTaken(trx, candidate))) return candidate;
    }
  }
}

/** A signed-in login: the session and what the day's streak awarded. */
export interface LoggedIn {
  user: UserRow;
  token: string;
  expiresAt: Date;
  streak: StreakView & { awardedCents: number };
}

/** What the second step of a login answers. */
export interface LoginChallenge {
  challengeToken: string;
  expiresAt: Date;
  factors: ('totp' | 'passkey')[];
}

/** The account's own details, which a password must not be made of. */
function ownDetails(
  email: string | null,
  names: {
    username?: string | null | undefined;
    firstName?: string | null | undefined;
    lastName?: string | null | undefined;
  },
): (string | null | undefined)[] {
  return [email, names.username, names.firstName, names.lastName];
}

function requireStrongPassword(field: string, strength: PasswordStrength): void {
  if (!strength.acceptable) throw new WeakPasswordError(`body.${field}`, strength);
}

function fieldProblem(field: string, message: string) {
  return { field: `body.${field}`, message };
}

const REFERRAL_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function newReferralCode(): string {
  const bytes = randomBytes(8);
  return Array.from(bytes, (b) => REFERRAL_ALPHABET[b % REFERRAL_ALPHABET.length]).join('');
}

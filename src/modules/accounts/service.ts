import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { API_KEY_PREFIX, type AuthUser, hashSecret, newSecret, SESSION_PREFIX } from '../../platform/auth.js';
import type { Database } from '../../platform/db/database.js';
import type { DB, UserRow } from '../../platform/db/schema.js';
import { isDatabaseUnavailable, isUniqueViolation, type Tx } from '../../platform/db/types.js';
import {
  ConflictError,
  InvalidCredentialsError,
  NotFoundError,
  RateLimitedError,
  ValidationError,
} from '../../platform/errors.js';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../../platform/passwords.js';
import type { LedgerRepository } from '../ledger/repository.js';
import {
  CREDENTIALS_CHANNEL,
  CredentialCache,
  type CredentialChange,
  type CredentialChanges,
  KEY_USE_INTERVAL_MS,
  type ResolvedCredential,
} from './credentials.js';
import type { AccountsRepository, CredentialOrigin, SessionRow } from './repository.js';
import { awardStreak, currentStreak, localDay, nextStreakBonus, type StreakState } from './streak.js';

export interface AccountsSettings {
  startingBalanceCents: number;
  adminEmail: string | null;
  sessionTtlHours: number;
  authCacheTtlMs: number;
  streakTimezone: string;
  loginMaxFailures: number;
  loginWindowMinutes: number;
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

export const MAX_API_KEYS = 20;

export class AccountsService implements CredentialChanges {
  private readonly registrationHooks: RegistrationHook[] = [];
  private inviteCheck: ((trx: Tx, code: string) => Promise<boolean>) | null = null;
  private readonly credentials: CredentialCache;
  private stopWatching: (() => Promise<void>) | null = null;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly accounts: AccountsRepository,
    private readonly ledger: LedgerRepository,
    private readonly settings: AccountsSettings,
  ) {
    this.credentials = new CredentialCache(settings.authCacheTtlMs);
  }

  onRegistered(hook: RegistrationHook): void {
    this.registrationHooks.push(hook);
  }

  /** Lets the challenges area say whether an invite code can still be accepted. */
  setInviteCheck(check: (trx: Tx, code: string) => Promise<boolean>): void {
    this.inviteCheck = check;
  }

  async register(
    input: RegisterInput,
    origin: CredentialOrigin | null = null,
  ): Promise<{ user: UserRow; token: string; expiresAt: Date }> {
    const email = input.email.trim().toLowerCase();
    const passwordHash = await hashPassword(input.password);
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
          role: email === this.settings.adminEmail ? 'admin' : 'user',
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

  async login(
    emailInput: string,
    password: string,
    address: string,
    userAgent?: string,
  ): Promise<{
    user: UserRow;
    token: string;
    expiresAt: Date;
    streak: StreakView & { awardedCents: number };
  }> {
    const email = emailInput.trim().toLowerCase();
    const keys = [`email:${email}`, `ip:${address}`];
    await this.refuseThrottled(keys);
    const user = await this.accounts.findUserByEmail(this.db, email);
    const ok = await this.checkPassword(password, user?.password_hash ?? DUMMY_PASSWORD_HASH, keys);
    if (!user || !ok) throw new InvalidCredentialsError();
    await this.accounts.clearLoginFailures(this.db, `email:${email}`);

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
      const session = await this.openSession(trx, user.id, { address, userAgent });
      return {
        user: locked,
        ...session,
        streak: { ...this.viewStreak(award.state, today), awardedCents: award.bonusCents },
      };
    });
  }

  async logout(auth: AuthUser): Promise<void> {
    if (auth.credential.kind !== 'session') return;
    const sessionId = auth.credential.id;
    await this.changeCredentials(async (trx) => {
      const tokenHash = await this.accounts.revokeSession(trx, sessionId);
      return tokenHash === null ? null : { tokenHash };
    });
  }

  /**
   * Changes the password after checking the current one (a wrong one counts as a failed login for the account, so
   * it cannot be guessed through a stolen session), and ends every other session of the account: the one making
   * the change stays signed in; a change made with an API key ends every session.
   */
  async changePassword(auth: AuthUser, current: string, next: string, address: string): Promise<number> {
    const user = await this.getUser(auth.userId);
    const key = `email:${user.email}`;
    await this.refuseThrottled([key, `ip:${address}`]);
    if (!(await this.checkPassword(current, user.password_hash, [key]))) {
      throw new ValidationError('The current password is not correct', [
        fieldProblem('currentPassword', 'is not correct'),
      ]);
    }
    if (current === next) {
      throw new ValidationError('The new password is the same as the current one', [
        fieldProblem('newPassword', 'is the same as the current one'),
      ]);
    }
    const passwordHash = await hashPassword(next);
    const keep = auth.credential.kind === 'session' ? auth.credential.id : null;
    let ended = 0;
    await this.changeCredentials(async (trx) => {
      await this.accounts.setPasswordHash(trx, auth.userId, passwordHash);
      ended = await this.accounts.revokeOtherSessions(trx, auth.userId, keep);
      return { userId: auth.userId };
    });
    return ended;
  }

  /** The account's live sessions, the one making the request marked. */
  async listSessions(auth: AuthUser): Promise<(SessionRow & { current: boolean })[]> {
    const rows = await this.accounts.listSessions(this.db, auth.userId);
    const currentId = auth.credential.kind === 'session' ? auth.credential.id : null;
    return rows.map((row) => ({ ...row, current: row.id === currentId }));
  }

  /** Ends one of the account's sessions (the current one included: that is a log-out). */
  async revokeSession(userId: number, sessionId: number): Promise<void> {
    const change = await this.changeCredentials(async (trx) => {
      const tokenHash = await this.accounts.revokeSessionOf(trx, userId, sessionId);
      return tokenHash === null ? null : { tokenHash };
    });
    if (!change) throw new NotFoundError('Session');
  }

  /** Refuses with 429 while any of these keys (`email:…`, `ip:…`) has had too many failed password checks. */
  private async refuseThrottled(keys: string[]): Promise<void> {
    const { loginMaxFailures: max, loginWindowMinutes: window } = this.settings;
    const blockedFor = await this.accounts.loginBlockedFor(this.db, keys, max, window);
    if (blockedFor > 0) throw new RateLimitedError(blockedFor);
  }

  /** Checks a password against a stored hash; a wrong one counts as a failure against each of `failureKeys`. */
  private async checkPassword(password: string, hash: string, failureKeys: string[]): Promise<boolean> {
    if (await verifyPassword(password, hash)) return true;
    for (const key of failureKeys) {
      await this.accounts.recordLoginFailure(this.db, key, this.settings.loginWindowMinutes);
    }
    return false;
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
    return this.viewStreak(streakStateOf(user), localDay(new Date(), this.settings.streakTimezone));
  }

  private viewStreak(state: StreakState, today: string): StreakView {
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

  async createApiKey(userId: number, name: string) {
    if ((await this.accounts.countActiveApiKeys(this.db, userId)) >= MAX_API_KEYS) {
      throw new ConflictError('TOO_MANY_API_KEYS', `At most ${MAX_API_KEYS} active API keys per account`);
    }
    const key = newSecret(API_KEY_PREFIX);
    const row = await this.accounts.insertApiKey(this.db, {
      userId,
      name,
      prefix: key.slice(0, API_KEY_PREFIX.length + 6),
      keyHash: hashSecret(key),
    });
    return { row, key };
  }

  listApiKeys(userId: number) {
    return this.accounts.listApiKeys(this.db, userId);
  }

  async revokeApiKey(userId: number, keyId: number): Promise<void> {
    const change = await this.changeCredentials(async (trx) => {
      const tokenHash = await this.accounts.revokeApiKey(trx, userId, keyId);
      return tokenHash === null ? null : { tokenHash };
    });
    if (!change) throw new NotFoundError('API key');
  }

  /**
   * Resolves a bearer token for the auth plugin: from this instance's memory when it can (see CredentialCache),
   * recording an API key's use at most once every KEY_USE_INTERVAL_MS rather than on every request.
   */
  async resolveCredential(token: string, address?: string): Promise<AuthUser | null> {
    const kind = token.startsWith(API_KEY_PREFIX)
      ? 'apiKey'
      : token.startsWith(SESSION_PREFIX)
        ? 'session'
        : null;
    if (!kind) return null;
    const tokenHash = hashSecret(token);
    const found = await this.credentials.resolve(tokenHash, () =>
      this.accounts.findCredential(this.db, tokenHash, kind),
    );
    if (!found) return null;
    await this.recordUse(found, address ?? null);
    return found.user;
  }

  private async recordUse(found: ResolvedCredential, address: string | null): Promise<void> {
    const now = Date.now();
    if (found.lastUsedAt && now - found.lastUsedAt.getTime() < KEY_USE_INTERVAL_MS) return;
    // Moved forward before the write, so concurrent requests with the same cached credential write once.
    found.lastUsedAt = new Date(now);
    // Bookkeeping: a database that takes no writes at the moment (read-only, full) must not fail a read. The use is
    // recorded next time.
    await this.accounts
      .touchCredential(this.db, found.user.credential, KEY_USE_INTERVAL_MS, address)
      .catch((error: unknown) => {
        if (!isDatabaseUnavailable(error)) throw error;
      });
  }

  /** Promotes `ADMIN_EMAIL` at start. */
  async ensureAdmin(): Promise<void> {
    if (this.settings.adminEmail) await this.promoteToAdmin(this.settings.adminEmail);
  }

  /** Gives an account the admin role; false when there is no such account or it is an admin already. */
  async promoteToAdmin(email: string): Promise<boolean> {
    const change = await this.changeCredentials(async (trx) => {
      const userId = await this.accounts.promoteToAdmin(trx, email.trim().toLowerCase());
      return userId === null ? null : { userId };
    });
    return change !== null;
  }

  announceCredentialChange(trx: Tx, change: CredentialChange): Promise<void> {
    return this.accounts.announceCredentialChange(trx, change);
  }

  forgetCredentials(change: CredentialChange): void {
    this.credentials.forget(change);
  }

  /**
   * Makes a change and announces it in one transaction, then forgets this instance's copies before returning, so
   * the caller's next request already sees it; other instances forget theirs when the announcement reaches them.
   */
  private async changeCredentials(
    work: (trx: Tx) => Promise<CredentialChange | null>,
  ): Promise<CredentialChange | null> {
    const change = await this.db.transaction().execute(async (trx) => {
      const made = await work(trx);
      if (made) await this.announceCredentialChange(trx, made);
      return made;
    });
    if (change) this.forgetCredentials(change);
    return change;
  }

  /**
   * Starts following announced credential changes; credentials are kept in memory only while this instance hears
   * them, so a lost listening connection turns caching off (forgetting everything) until it is back.
   */
  async watchCredentialChanges(database: Pick<Database, 'listen'>): Promise<void> {
    if (!this.credentials.enabled || this.stopWatching) return;
    this.stopWatching = await database.listen(
      CREDENTIALS_CHANNEL,
      (payload) => this.credentials.forgetAnnounced(payload),
      (listening) => this.credentials.setListening(listening),
    );
    this.credentials.setListening(true);
  }

  async stopWatchingCredentialChanges(): Promise<void> {
    this.credentials.setListening(false);
    await this.stopWatching?.();
    this.stopWatching = null;
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
    const padded = base.length >= 3 ? base : `${base}_trader`;
    if (!(await this.accounts.usernameTaken(trx, padded))) return padded;
    for (;;) {
      const candidate = `${padded}${randomBytes(2).readUInt16BE(0) % 10000}`;
      if (!(await this.accounts.usernameTaken(trx, candidate))) return candidate;
    }
  }
}

export interface StreakView {
  current: number;
  longest: number;
  lastDay: string | null;
  awardedToday: boolean;
  nextBonus: { day: number; bonusCents: number; availableOn: 'today' | 'tomorrow' };
}

function streakStateOf(user: UserRow): StreakState {
  return {
    current: user.streak_current,
    longest: user.streak_longest,
    lastDay: user.streak_last_day,
  };
}

function fieldProblem(field: string, message: string) {
  return { field: `body.${field}`, message };
}

const REFERRAL_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function newReferralCode(): string {
  const bytes = randomBytes(8);
  return Array.from(bytes, (b) => REFERRAL_ALPHABET[b % REFERRAL_ALPHABET.length]).join('');
}

import { randomBytes } from 'node:crypto';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Kysely } from 'kysely';
import { generateSecret, generateURI, verify } from 'otplib';
import { type AuthUser, hashSecret, newSecret } from '../../platform/auth.js';
import type { DB, UserRow } from '../../platform/db/schema.js';
import {
  AppError,
  ConflictError,
  InvalidCredentialsError,
  NotFoundError,
  UnauthenticatedError,
} from '../../platform/errors.js';
import type { SignInAddress } from './login-throttle.js';
import type { PasskeyService } from './passkeys.js';
import type { FactorKind, SecondFactorRepository } from './second-factor-repository.js';

export const CHALLENGE_PREFIX = 'pmx_mfa_';
/** How long the challenge of a two-step login lives, and how many codes it takes before it is spent. */
const CHALLENGE_TTL_MS = 5 * 60_000;
const CHALLENGE_ATTEMPTS = 5;
const RECOVERY_CODES = 10;
/** Codes a step either side of the server's clock are accepted (an authenticator's clock drifts). */
const EPOCH_TOLERANCE_SECONDS = 30;

export interface SecondFactorSettings {
  issuer: string;
  /** How long a session's proof of a factor counts as fresh for the actions that need one. */
  freshMinutes: number;
}

/**
 * Checks the account's current password (400 naming `password` when missing or wrong, counted by the login
 * throttle); an account's first factor needs it, so that a stolen session alone cannot add one.
 */
export type PasswordCheck = (
  userId: number,
  password: string | undefined,
  from: SignInAddress,
) => Promise<unknown>;

/** What adding a factor carries besides the factor: the current password, and where the request came from. */
export interface AddingFactor {
  password: string | undefined;
  from: SignInAddress;
}

/** Seals the authenticator app's secret for its owner's row, and opens it to check a code (SealedColumn). */
export interface TotpSecrets {
  seal(userId: number, secret: string): string;
  open(userId: number, stored: string): string;
}

/** A code from the authenticator app, one of the recovery codes, or a passkey's answer to a challenge. */
export type FactorProof =
  | { code: string }
  | { recoveryCode: string }
  | { passkey: AuthenticationResponseJSON };

export class SecondFactorRequiredError extends AppError {
  constructor(freshMinutes: number) {
    super(
      403,
      'FRESH_SECOND_FACTOR_REQUIRED',
      `This needs a second factor proved within ${freshMinutes} minutes: POST /api/me/second-factors/verify, or ` +
        'send the code in X-Second-Factor',
      { freshMinutes },
    );
  }
}

export class InvalidSecondFactorError extends AppError {
  constructor() {
    super(401, 'INVALID_SECOND_FACTOR', 'The code is not valid (or was used already)');
  }
}

/**
 * Second factors: an authenticator app (TOTP) and passkeys, with one-time recovery codes. Once one is in force,
 * login takes two steps (password → challenge token → code or passkey), and the actions that could take over an
 * account or its money need a factor proved within `freshMinutes` by the session making them. A passkey that
 * verifies its user also signs in on its own, without a password.
 */
export class SecondFactorService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly factors: SecondFactorRepository,
    private readonly passkeys: PasskeyService,
    private readonly settings: SecondFactorSettings,
    private readonly checkPassword: PasswordCheck,
    private readonly secrets: TotpSecrets,
  ) {}

  async status(userId: number) {
    const totp = await this.factors.findTotp(this.db, userId);
    return {
      totp: totp?.confirmed_at ? { enabled: true, confirmedAt: totp.confirmed_at } : null,
      passkeys: (await this.passkeys.list(userId)).length,
      recoveryCodesLeft: await this.factors.recoveryCodesLeft(this.db, userId),
    };
  }

  /** A new TOTP secret for the user's authenticator app, not in force until a code from it confirms it. */
  async startTotp(user: UserRow): Promise<{ secret: string; otpauthUri: string }> {
    const existing = await this.factors.findTotp(this.db, user.id);
    if (existing?.confirmed_at)
      throw new ConflictError('TOTP_ALREADY_ENABLED', 'An authenticator app is set up already');
    const secret = generateSecret();
    await this.factors.startTotp(this.db, user.id, this.secrets.seal(user.id, secret));
    return { secret, otpauthUri: generateURI({ issuer: this.settings.issuer, label: user.email, secret }) };
  }

  /**
   * Confirms the secret with a code from the app (and, as the account's first factor, the current password); the
   * recovery codes (shown once), and the session made fresh.
   */
  async confirmTotp(auth: AuthUser, code: string, adding: AddingFactor): Promise<string[]> {
    const totp = await this.factors.findTotp(this.db, auth.userId);
    if (!totp) throw new NotFoundError('Authenticator app being set up');
    if (totp.confirmed_at)
      throw new ConflictError('TOTP_ALREADY_ENABLED', 'An authenticator app is set up already');
    await this.passwordForFirst(auth.userId, adding);
    if (!(await this.acceptCode(auth.userId, totp, code))) throw new InvalidSecondFactorError();
    const codes = await this.newRecoveryCodes(auth.userId);
    await this.markFresh(auth);
    return codes;
  }

  async removeTotp(userId: number): Promise<void> {
    if (!(await this.factors.deleteTotp(this.db, userId))) throw new NotFoundError('Second factor');
    await this.forgetRecoveryCodesWhenBare(userId);
  }

  /**
   * Registers a passkey; the account's first factor (which needs the current password) also gets its recovery
   * codes (shown once), and the session proved a factor by making it.
   */
  async addPasskey(auth: AuthUser, name: string, response: RegistrationResponseJSON, adding: AddingFactor) {
    const first = await this.passwordForFirst(auth.userId, adding);
    const passkey = await this.passkeys.register(auth.userId, name, response);
    const recoveryCodes = first ? await this.newRecoveryCodes(auth.userId) : [];
    await this.markFresh(auth);
    return { passkey, recoveryCodes };
  }

  /**
   * An account without a factor adds its first only with its current password (one that has a factor needs a fresh
   * one instead, see `requireFresh`); whether it is the first.
   */
  private async passwordForFirst(userId: number, adding: AddingFactor): Promise<boolean> {
    if ((await this.factorsOf(userId)).length > 0) return false;
    await this.checkPassword(userId, adding.password, adding.from);
    return true;
  }

  async removePasskey(userId: number, passkeyId: number): Promise<void> {
    await this.passkeys.remove(userId, passkeyId);
    await this.forgetRecoveryCodesWhenBare(userId);
  }

  /** The factors a login of this account may answer its challenge with. */
  factorsOf(userId: number): Promise<FactorKind[]> {
    return this.factors.confirmedFactors(this.db, userId);
  }

  /** A sign-in with a passkey alone (one that verified its user); the session starts fresh. */
  async signInWithPasskey<R>(
    response: AuthenticationResponseJSON,
    complete: (userId: number) => Promise<R & { token: string }>,
  ): Promise<R & { token: string }> {
    const userId = await this.passkeys.prove(response, null);
    if (userId === null) throw new InvalidCredentialsError();
    return this.startVerified(await complete(userId));
  }

  /** Proves a factor for the session making the request (actions that need a fresh one follow). */
  async verify(auth: AuthUser, proof: FactorProof): Promise<void> {
    if (!(await this.prove(auth.userId, proof))) throw new InvalidSecondFactorError();
    await this.markFresh(auth);
  }

  /** The challenge a login must answer with a factor, or null when the account has none. */
  async challengeFor(
    user: UserRow,
  ): Promise<{ challengeToken: string; expiresAt: Date; factors: FactorKind[] } | null> {
    const factors = await this.factorsOf(user.id);
    if (factors.length === 0) return null;
    const challengeToken = newSecret(CHALLENGE_PREFIX);
    const expiresAt = new Date(Date.now() + CHALLENGE_TTL_MS);
    await this.factors.insertChallenge(this.db, user.id, hashSecret(challengeToken), expiresAt);
    return { challengeToken, expiresAt, factors };
  }

  /** The options a passkey answers for a login's second step (its challenge still live), 404 without a passkey. */
  async passkeyOptionsForChallenge(challengeToken: string) {
    const userId = await this.factors.liveChallengeUser(this.db, hashSecret(challengeToken));
    if (userId === null)
      throw new UnauthenticatedError('The login challenge is unknown, expired or used up: log in again');
    return this.passkeys.authenticationOptions(userId);
  }

  /** The second step of a login: a factor for a live challenge, then the session; the session starts fresh. */
  async answerChallenge<R>(
    challengeToken: string,
    proof: FactorProof,
    complete: (userId: number) => Promise<R & { token: string }>,
  ): Promise<R & { token: string }> {
    const challenge = await this.factors.attemptChallenge(this.db, hashSecret(challengeToken));
    if (!challenge || challenge.attempts > CHALLENGE_ATTEMPTS)
      throw new UnauthenticatedError('The login challenge is unknown, expired or used up: log in again');
    if (!(await this.prove(challenge.user_id, proof))) throw new InvalidSecondFactorError();
    await this.factors.spendChallenge(this.db, challenge.id);
    return this.startVerified(await complete(challenge.user_id));
  }

  private async startVerified<R extends { token: string }>(result: R): Promise<R> {
    const sessionId = await this.factors.sessionIdOf(this.db, hashSecret(result.token));
    if (sessionId !== null) await this.factors.markSessionVerified(this.db, sessionId);
    return result;
  }

  /**
   * Refuses (403 FRESH_SECOND_FACTOR_REQUIRED) unless the account has no factor, the session proved one within
   * `freshMinutes`, or the request carries a valid code (`headerCode`, X-Second-Factor).
   */
  async requireFresh(auth: AuthUser, headerCode: string | null): Promise<void> {
    if (!(await this.factors.hasConfirmedFactor(this.db, auth.userId))) return;
    if (headerCode !== null && (await this.prove(auth.userId, { code: headerCode }))) return;
    if (auth.credential.kind === 'session') {
      const at = await this.factors.sessionVerifiedAt(this.db, auth.credential.id);
      if (at && Date.now() - at.getTime() <= this.settings.freshMinutes * 60_000) return;
    }
    throw new SecondFactorRequiredError(this.settings.freshMinutes);
  }

  private async prove(userId: number, proof: FactorProof): Promise<boolean> {
    if ('passkey' in proof) return (await this.passkeys.prove(proof.passkey, userId)) === userId;
    if ('recoveryCode' in proof)
      return this.factors.spendRecoveryCode(this.db, userId, recoveryHash(proof.recoveryCode));
    const totp = await this.factors.findTotp(this.db, userId);
    return totp?.confirmed_at ? this.acceptCode(userId, totp, proof.code) : false;
  }

  /**
   * Accepts a code of the secret once: never again, nor one of an earlier time step. A secret that does not open
   * (moved to another account's row, altered) accepts no code.
   */
  private async acceptCode(
    userId: number,
    totp: { id: number; secret: string; last_time_step: number | null },
    code: string,
  ) {
    if (!/^\d{6}$/.test(code)) return false;
    let secret: string;
    try {
      secret = this.secrets.open(userId, totp.secret);
    } catch {
      return false;
    }
    const result = await verify({
      secret,
      token: code,
      epochTolerance: EPOCH_TOLERANCE_SECONDS,
      ...(totp.last_time_step === null ? {} : { afterTimeStep: Number(totp.last_time_step) }),
    }).catch(() => ({ valid: false as const }));
    if (!result.valid || !('timeStep' in result)) return false;
    return this.factors.acceptTimeStep(this.db, totp.id, result.timeStep);
  }

  private async newRecoveryCodes(userId: number): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    await this.factors.replaceRecoveryCodes(this.db, userId, codes.map(recoveryHash));
    return codes;
  }

  /** Recovery codes stand in for a factor: with the last factor gone, they go too. */
  private async forgetRecoveryCodesWhenBare(userId: number): Promise<void> {
    if ((await this.factorsOf(userId)).length === 0) await this.factors.deleteRecoveryCodes(this.db, userId);
  }

  private async markFresh(auth: AuthUser): Promise<void> {
    if (auth.credential.kind === 'session')
      await this.factors.markSessionVerified(this.db, auth.credential.id);
  }
}

/** 80 random bits as four groups of four base32 letters; stored only as SHA-256. */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = randomBytes(16);
  const letters = Array.from(bytes, (b) => alphabet[b % 32]).join('');
  return letters.match(/.{4}/g)?.join('-') ?? letters;
}

function recoveryHash(code: string): string {
  return hashSecret(
    code
      .trim()
      .toLowerCase()
      .replace(/[^a-z2-7]/g, ''),
  );
}

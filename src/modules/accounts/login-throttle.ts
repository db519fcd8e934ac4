import type { Kysely } from 'kysely';
import { hashSecret } from '../../platform/auth.js';
import type { DB } from '../../platform/db/schema.js';
import { RateLimitedError } from '../../platform/errors.js';
import type { SignInRepository } from './sign-in-repository.js';

export interface LoginThrottleSettings {
  loginMaxFailures: number;
  loginMaxFailuresPerAddress: number;
  loginMaxFailuresPerAccount: number;
  loginWindowMinutes: number;
}

/**
 * Where a sign-in comes from: `ip` is the request's address (the connecting one, or the client a trusted proxy
 * names), and `key` tells apart the clients behind a proxy that is not trusted (the address with the
 * X-Forwarded-For it sent: never trusted as an address, only kept apart).
 */
export interface SignInAddress {
  ip: string;
  key: string;
}

/** The first delay once a bound is reached, in seconds; each further failure doubles it. */
const FIRST_DELAY_SECONDS = 2;

/**
 * Slows down password guessing without handing anyone a way to lock an owner out. Failures count against three keys:
 * the account from one address (`pair`, the tightest bound), one address whatever the account (`ip`), and the
 * account from anywhere (`account`, the loosest). Past a bound each failure delays the next attempt on that key,
 * the delay doubling up to `LOGIN_WINDOW_MINUTES`. The address and account bounds never refuse an address the
 * account has signed in from before: an attacker elsewhere cannot keep its owner out, while each address of theirs
 * is slowed down on its own.
 */
export class LoginThrottle {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly repository: SignInRepository,
    private readonly settings: LoginThrottleSettings,
  ) {}

  /** Refuses with 429 (and when to come back) while this attempt is to wait. */
  async check(email: string, userId: number | null, from: SignInAddress): Promise<void> {
    const keys = keysOf(email, from);
    const blocked = await this.repository.blockedFor(this.db, [keys.pair, keys.ip, keys.account]);
    const pair = blocked.get(keys.pair);
    if (pair !== undefined) throw new RateLimitedError(pair);
    const wider = Math.max(blocked.get(keys.ip) ?? 0, blocked.get(keys.account) ?? 0);
    if (wider === 0) return;
    if (userId !== null && (await this.repository.isKnownAddress(this.db, userId, addressHash(from)))) return;
    throw new RateLimitedError(wider);
  }

  /** Counts a wrong password against every key, slowing down those past their bound. */
  async failed(email: string, from: SignInAddress): Promise<void> {
    const keys = keysOf(email, from);
    const bounds: [string, number][] = [
      [keys.pair, this.settings.loginMaxFailures],
      [keys.ip, this.settings.loginMaxFailuresPerAddress],
      [keys.account, this.settings.loginMaxFailuresPerAccount],
    ];
    for (const [key, bound] of bounds) {
      const failures = await this.repository.recordFailure(this.db, key);
      if (failures >= bound)
        await this.repository.blockUntil(this.db, key, this.delaySeconds(failures - bound));
    }
  }

  /**
   * The right password: the account and this address forget their failures together, and the address becomes one
   * the account is known to sign in from. The address's and the account's counts stay (an attacker's own account
   * must not wipe what their guesses at others counted).
   */
  async succeeded(userId: number, email: string, from: SignInAddress): Promise<void> {
    await this.repository.clearFailures(this.db, keysOf(email, from).pair);
    await this.remember(userId, from);
  }

  /** Makes this address one the account signs in from (registration, a login, a password reset by mail). */
  remember(userId: number, from: SignInAddress): Promise<void> {
    return this.repository.rememberAddress(this.db, userId, addressHash(from));
  }

  /** The account is reclaimed by its owner (a password reset by mail): its own count starts again. */
  async forgetAccount(email: string): Promise<void> {
    await this.repository.clearFailures(this.db, `account:${email}`);
  }

  private delaySeconds(beyondBound: number): number {
    const longest = this.settings.loginWindowMinutes * 60;
    return Math.min(longest, FIRST_DELAY_SECONDS * 2 ** Math.min(beyondBound, 30));
  }
}

function keysOf(email: string, from: SignInAddress) {
  return { pair: `pair:${email}:${addressHash(from)}`, ip: `ip:${from.ip}`, account: `account:${email}` };
}

function addressHash(from: SignInAddress): string {
  return hashSecret(from.key);
}

import { LRUCache } from 'lru-cache';
import type { AuthUser } from '../../platform/auth.js';
import type { Tx } from '../../platform/db/types.js';

/** The NOTIFY channel on which every instance hears of revoked credentials, suspensions and role changes. */
export const CREDENTIALS_CHANNEL = 'pmx_auth';

/** The most credentials one instance keeps in memory; the least recently used go first. */
export const MAX_CACHED_CREDENTIALS = 10_000;

/** An API key's `last_used_at` is written at most this often. */
export const KEY_USE_INTERVAL_MS = 60_000;

/** What changed: one credential, named by the SHA-256 of its token, or everything of one user. */
export type CredentialChange = { tokenHash: string } | { userId: number };

/** A credential as looked up in the database. */
export interface ResolvedCredential {
  user: AuthUser;
  /** When a session token stops working; null for API keys, which do not expire. */
  expiresAt: Date | null;
  /** When an API key's use was last recorded; this instance moves it forward as it records uses. */
  lastUsedAt: Date | null;
}

/**
 * Lets an area that suspends or reinstates users, or changes roles, make the change take effect at once on every
 * instance.
 */
export interface CredentialChanges {
  /** Inside the transaction that makes the change: every instance forgets the affected credentials when it commits. */
  announceCredentialChange(trx: Tx, change: CredentialChange): Promise<void>;
  /** After the commit: this instance forgets them now, before the change is acknowledged. */
  forgetCredentials(change: CredentialChange): void;
}

/**
 * Credentials this instance has looked up, keyed by the SHA-256 of the token (the token itself is never kept), so
 * an authenticated request costs no database round trip. Only credentials that exist are kept: an unknown token is
 * looked up every time, so a key created on another instance works at once. An entry lives at most `ttlMs`, never
 * past its session's expiry, and goes as soon as a change to it is announced on `CREDENTIALS_CHANNEL`.
 *
 * Caching is on only while this instance is sure to hear those announcements (`listening`); otherwise every
 * request is looked up.
 */
export class CredentialCache {
  private readonly entries: LRUCache<string, ResolvedCredential> | null;
  private readonly inflight = new Map<string, Promise<ResolvedCredential | null>>();
  private listening = false;
  // Bumped by every forget: a lookup that started before one may have read the old state, so it is not kept.
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    max = MAX_CACHED_CREDENTIALS,
  ) {
    this.entries = ttlMs > 0 ? new LRUCache({ max, ttl: ttlMs }) : null;
  }

  get enabled(): boolean {
    return this.entries !== null;
  }

  /** Whether announcements reach this instance: caching starts with them and stops (forgetting all) without them. */
  setListening(listening: boolean): void {
    this.listening = listening;
    this.clear();
  }

  /** The credential of a token hash, from memory when this instance has it, else from `load`. */
  async resolve(
    tokenHash: string,
    load: () => Promise<ResolvedCredential | null>,
  ): Promise<ResolvedCredential | null> {
    if (!this.entries || !this.listening) return load();
    const cached = this.entries.get(tokenHash);
    if (cached && isLive(cached, Date.now())) return cached;
    if (cached) this.entries.delete(tokenHash);
    const running = this.inflight.get(tokenHash);
    if (running) return running;
    const generation = this.generation;
    const loading = load()
      .then((found) => {
        if (found) this.keep(tokenHash, found, generation);
        return found;
      })
      .finally(() => {
        if (this.inflight.get(tokenHash) === loading) this.inflight.delete(tokenHash);
      });
    this.inflight.set(tokenHash, loading);
    return loading;
  }

  private keep(tokenHash: string, found: ResolvedCredential, generation: number): void {
    const now = Date.now();
    if (!this.entries || generation !== this.generation || !isLive(found, now)) return;
    Object.freeze(found.user.credential);
    Object.freeze(found.user);
    const untilExpiry = found.expiresAt ? found.expiresAt.getTime() - now : this.ttlMs;
    this.entries.set(tokenHash, found, { ttl: Math.max(1, Math.min(this.ttlMs, untilExpiry)) });
  }

  /** Forgets what a change touches; lookups already under way are not kept either. */
  forget(change: CredentialChange): void {
    this.generation += 1;
    this.inflight.clear();
    if (!this.entries) return;
    if ('tokenHash' in change) {
      this.entries.delete(change.tokenHash);
      return;
    }
    const doomed: string[] = [];
    for (const [tokenHash, entry] of this.entries.entries()) {
      if (entry.user.userId === change.userId) doomed.push(tokenHash);
    }
    for (const tokenHash of doomed) this.entries.delete(tokenHash);
  }

  /** Handles a payload from `CREDENTIALS_CHANNEL`; one it cannot read forgets everything, to be safe. */
  forgetAnnounced(payload: string): void {
    const change = parseChange(payload);
    if (change) this.forget(change);
    else this.clear();
  }

  clear(): void {
    this.generation += 1;
    this.inflight.clear();
    this.entries?.clear();
  }
}

function isLive(credential: ResolvedCredential, now: number): boolean {
  return credential.expiresAt === null || credential.expiresAt.getTime() > now;
}

function parseChange(payload: string): CredentialChange | null {
  try {
    const value = JSON.parse(payload) as { tokenHash?: unknown; userId?: unknown };
    if (typeof value.tokenHash === 'string') return { tokenHash: value.tokenHash };
    if (typeof value.userId === 'number') return { userId: value.userId };
  } catch {
    // Falls through: an unreadable notice forgets everything.
  }
  return null;
}

import type { Kysely } from 'kysely';
import { API_KEY_PREFIX, type AuthUser, hashSecret, SESSION_PREFIX } from '../../platform/auth.js';
import type { Database } from '../../platform/db/database.js';
import type { DB } from '../../platform/db/schema.js';
import { isDatabaseUnavailable, type Tx } from '../../platform/db/types.js';
import {
  CREDENTIALS_CHANNEL,
  CredentialCache,
  type CredentialChange,
  type CredentialChanges,
  KEY_USE_INTERVAL_MS,
  type ResolvedCredential,
} from './credentials.js';
import type { AccountsRepository } from './repository.js';

/**
 * Who a bearer token is, kept in this instance's memory while it hears every instance's announced changes: a
 * session or key revoked, a password changed, a role granted or a user suspended anywhere is forgotten here at once.
 */
export class CredentialAccess implements CredentialChanges {
  private readonly cache: CredentialCache;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly accounts: AccountsRepository,
    cacheTtlMs: number,
  ) {
    this.cache = new CredentialCache(cacheTtlMs);
  }

  /**
   * Resolves a bearer token for the auth plugin: from this instance's memory when it can (see CredentialCache),
   * recording an API key's use at most once every KEY_USE_INTERVAL_MS rather than on every request.
   */
  async resolve(token: string, address?: string): Promise<AuthUser | null> {
    const kind = token.startsWith(API_KEY_PREFIX)
      ? 'apiKey'
      : token.startsWith(SESSION_PREFIX)
        ? 'session'
        : null;
    if (!kind) return null;
    const tokenHash = hashSecret(token);
    const found = await this.cache.resolve(tokenHash, () =>
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

  announceCredentialChange(trx: Tx, change: CredentialChange): Promise<void> {
    return this.accounts.announceCredentialChange(trx, change);
  }

  forgetCredentials(change: CredentialChange): void {
    this.cache.forget(change);
  }

  /**
   * Makes a change and announces it in one transaction, then forgets this instance's copies before returning, so
   * the caller's next request already sees it; other instances forget theirs when the announcement reaches them.
   */
  async change(work: (trx: Tx) => Promise<CredentialChange | null>): Promise<CredentialChange | null> {
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
  async watch(database: Pick<Database, 'listen'>): Promise<void> {
    if (!this.cache.enabled || this.unlisten) return;
    this.unlisten = await database.listen(
      CREDENTIALS_CHANNEL,
      (payload) => this.cache.forgetAnnounced(payload),
      (listening) => this.cache.setListening(listening),
    );
    this.cache.setListening(true);
  }

  async stopWatching(): Promise<void> {
    this.cache.setListening(false);
    await this.unlisten?.();
    this.unlisten = null;
  }
}

import type { Kysely } from 'kysely';
import { API_KEY_PREFIX, type AuthUser, hashSecret, newSecret } from '../../platform/auth.js';
import type { DB } from '../../platform/db/schema.js';
import type { Tx } from '../../platform/db/types.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import type { Scope } from '../../platform/scopes.js';
import type { CredentialChange } from './credentials.js';
import { FULL_ACCESS, type KeySettingsInput, settleKeySettings } from './key-settings.js';
import type { AccountsRepository, ApiKeyRow } from './repository.js';

export const MAX_API_KEYS = 20;

/** Makes a change to credentials and announces it, so that every instance forgets its copies (AccountsService). */
export type ChangeCredentials = (
  work: (trx: Tx) => Promise<CredentialChange | null>,
) => Promise<CredentialChange | null>;

/**
 * A user's API keys: made (shown once) with their scopes, allow-list, expiry and limits, listed, changed and revoked.
 * A change or a revocation reaches every instance at once.
 */
export class ApiKeysService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly accounts: AccountsRepository,
    private readonly changeCredentials: ChangeCredentials,
  ) {}

  /** Makes an API key (shown once) with its scopes, allow-list, expiry and limits: every scope and none else unset. */
  async createApiKey(auth: AuthUser, name: string, input: KeySettingsInput = {}) {
    const { userId } = auth;
    const settings = settleKeySettings(input, FULL_ACCESS, auth, new Date());
    if ((await this.accounts.countActiveApiKeys(this.db, userId)) >= MAX_API_KEYS) {
      throw new ConflictError('TOO_MANY_API_KEYS', `At most ${MAX_API_KEYS} active API keys per account`);
    }
    const key = newSecret(API_KEY_PREFIX);
    const id = await this.db.transaction().execute((trx) =>
      this.accounts.insertApiKey(trx, {
        userId,
        name,
        prefix: key.slice(0, API_KEY_PREFIX.length + 6),
        keyHash: hashSecret(key),
        settings,
      }),
    );
    return { row: await this.getApiKey(userId, id), key };
  }

  listApiKeys(userId: number) {
    return this.accounts.listApiKeys(this.db, userId);
  }

  async getApiKey(userId: number, keyId: number): Promise<ApiKeyRow> {
    const [row] = await this.accounts.listApiKeys(this.db, userId, keyId);
    if (!row) throw new NotFoundError('API key');
    return row;
  }

  /** Changes a key's name, scopes, allow-list, expiry or limits; every instance follows at once. */
  async updateApiKey(
    auth: AuthUser,
    keyId: number,
    change: KeySettingsInput & { name?: string | undefined },
  ): Promise<ApiKeyRow> {
    const row = await this.getApiKey(auth.userId, keyId);
    const current = {
      scopes: row.scopes as Scope[],
      allowedCidrs: row.allowed_cidrs,
      expiresAt: row.expires_at,
      limits: row.limits,
    };
    const settings = settleKeySettings(change, current, auth, new Date());
    const made = await this.changeCredentials(async (trx) => {
      const tokenHash = await this.accounts.updateApiKey(trx, auth.userId, keyId, {
        name: change.name,
        settings,
      });
      return tokenHash === null ? null : { tokenHash };
    });
    if (!made) throw new NotFoundError('API key');
    return this.getApiKey(auth.userId, keyId);
  }

  async revokeApiKey(userId: number, keyId: number): Promise<void> {
    const change = await this.changeCredentials(async (trx) => {
      const tokenHash = await this.accounts.revokeApiKey(trx, userId, keyId);
      return tokenHash === null ? null : { tokenHash };
    });
    if (!change) throw new NotFoundError('API key');
  }
}

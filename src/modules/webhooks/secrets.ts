import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { type SecretBox, SecretKeyError, sealedKeyId } from '../../platform/secrets.js';
import type { WebhooksRepository } from './repository.js';

const RESEAL_BATCH = 200;

/** What a sealed secret is bound to: its owner, so that it opens in no other account's row. */
function contextOf(userId: number): string {
  return `webhook_subscriptions.secret:user:${userId}`;
}

export interface SecretsStatus {
  currentKeyId: string;
  /** Stored secrets by the key that sealed them (`keyId` null: plain, not sealed yet), and whether it is at hand. */
  byKey: { keyId: string | null; count: number; known: boolean }[];
}

/**
 * Webhook signing secrets at rest: sealed with the keyring's current key when made, opened to sign, and resealed
 * at start (or by `npm run admin -- secrets reseal`) when stored plain or under an older key.
 */
export class WebhookSecrets {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly webhooks: WebhooksRepository,
    private readonly box: SecretBox,
  ) {}

  seal(userId: number, secret: string): string {
    return this.box.seal(secret, contextOf(userId));
  }

  /** The secret to sign with; one stored before sealing is used as it is (until the next start seals it). */
  open(userId: number, stored: string): string {
    return sealedKeyId(stored) === null ? stored : this.box.open(stored, contextOf(userId));
  }

  async status(): Promise<SecretsStatus> {
    const known = new Set(this.box.keyIds);
    const rows = await this.webhooks.secretsByKey(this.db);
    return {
      currentKeyId: this.box.currentKeyId,
      byKey: rows.map((r) => ({
        keyId: r.key_id,
        count: r.count,
        known: r.key_id === null || known.has(r.key_id),
      })),
    };
  }

  /**
   * Seals every secret stored plain and reseals those of older keys with the current one. Refuses, before
   * changing anything, when a secret was sealed with a key the keyring no longer holds: the deliveries of those
   * subscriptions could not be signed.
   */
  async sealStored(): Promise<{ sealed: number; resealed: number }> {
    const missing = (await this.status()).byKey.filter((k) => !k.known);
    if (missing.length > 0) {
      const list = missing.map((k) => `${k.count} with key ${k.keyId}`).join(', ');
      throw new SecretKeyError(
        `webhook signing secrets are sealed with keys the service does not have (${list}): put those keys back ` +
          'in SECRETS_KEY (after the current one) or restore DATA_DIR/secrets.key',
      );
    }
    const done = { sealed: 0, resealed: 0 };
    for (;;) {
      const batch = await this.db.transaction().execute(async (trx) => {
        const rows = await this.webhooks.secretsNotSealedWith(trx, this.box.currentKeyId, RESEAL_BATCH);
        for (const row of rows) {
          await this.webhooks.setSecret(
            trx,
            row.id,
            this.seal(row.user_id, this.open(row.user_id, row.secret)),
          );
        }
        return rows;
      });
      const plain = batch.filter((row) => sealedKeyId(row.secret) === null).length;
      done.sealed += plain;
      done.resealed += batch.length - plain;
      if (batch.length < RESEAL_BATCH) return done;
    }
  }
}

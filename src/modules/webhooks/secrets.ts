import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { SealedColumn } from '../../platform/sealed-secrets.js';
import type { SecretBox } from '../../platform/secrets.js';

/**
 * Webhook signing secrets at rest: sealed with the keyring's current key when made, opened to sign, and resealed
 * at start (or by `npm run admin -- secrets reseal`) when stored plain or under an older key; each bound to the
 * subscription's owner.
 */
export type WebhookSecrets = SealedColumn;

export function webhookSecrets(db: Kysely<DB>, box: SecretBox): WebhookSecrets {
  return new SealedColumn(db, box, {
    table: 'webhook_subscriptions',
    column: 'secret',
    what: 'webhook signing secrets',
  });
}

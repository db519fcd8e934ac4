import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** A signing secret in the Standard Webhooks form: "whsec_" + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** A message id for the webhook-id header: unique per event, the same on every retry of it. */
export function newMessageId(): string {
  return `msg_${randomBytes(18).toString('base64url')}`;
}

/**
 * The webhook-signature header value: "v1," + base64 HMAC-SHA256 of "id.timestamp.body", keyed with the
 * base64-decoded part of the secret after its prefix.
 */
export function signWebhook(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const digest = createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64');
  return `v1,${digest}`;
}

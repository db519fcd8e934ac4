import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { JobRunner } from '../../platform/jobs.js';
import type { SecretBox } from '../../platform/secrets.js';
import type { NotificationsService } from '../notifications/service.js';
import { WebhookOutbox } from './outbox.js';
import { WebhooksRepository } from './repository.js';
import { type WebhookSecrets, webhookSecrets } from './secrets.js';
import { WebhooksService } from './service.js';
import { UrlGuard } from './url-guard.js';

export type { WebhookEventType } from './events.js';
export type { Subscription, WebhookEvent, WebhookOutbox } from './outbox.js';
export { WebhookEvents } from './outbox.js';
export { webhooksRoutes } from './routes.js';

export const WEBHOOK_JOBS = { deliver: 'webhooks.deliver', prune: 'webhooks.prune' } as const;

export interface WebhooksModule {
  service: WebhooksService;
  /** Other areas write their events here, in the transaction of the change. */
  outbox: WebhookOutbox;
  /** The signing secrets at rest: sealed at start, resealed after a key rotation. */
  secrets: WebhookSecrets;
}

/**
 * Signed webhooks: subscriptions, the outbox (every feed item is also offered to the user's subscriptions) and
 * the delivery jobs.
 */
export function createWebhooks(deps: {
  db: Kysely<DB>;
  notifications: NotificationsService;
  jobs: JobRunner;
  config: { webhookTimeoutMs: number; webhookAllowPrivate: boolean };
  secretBox: SecretBox;
}): WebhooksModule {
  const repository = new WebhooksRepository();
  const outbox = new WebhookOutbox(repository);
  const secrets = webhookSecrets(deps.db, deps.secretBox);
  const guard = new UrlGuard(deps.config.webhookAllowPrivate);
  const service = new WebhooksService(deps.db, repository, guard, secrets, {
    timeoutMs: deps.config.webhookTimeoutMs,
  });
  deps.notifications.onNotified((trx, rows) => outbox.publishNotifications(trx, rows));
  deps.jobs.register(WEBHOOK_JOBS.deliver, () => service.deliverDue());
  deps.jobs.register(WEBHOOK_JOBS.prune, () => service.pruneFinished());
  return { service, outbox, secrets };
}

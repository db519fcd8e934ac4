import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { decodeCursor, toPage } from '../../platform/http.js';
import { WebhookLimitReachedError } from './errors.js';
import type { WebhookEventType } from './events.js';
import type { AttemptRow, ClaimedDelivery, SubscriptionRow, WebhooksRepository } from './repository.js';
import type { WebhookSecrets } from './secrets.js';
import { type SendResult, sendWebhook } from './sender.js';
import { newSigningSecret, signWebhook } from './signature.js';
import type { UrlGuard } from './url-guard.js';

/** Waits before each retry: about a day in all, then the delivery is marked failed. */
export const RETRY_DELAYS_SECONDS = [30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 28_800];
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
export const MAX_SUBSCRIPTIONS = 10;
const CLAIM_BATCH = 10;
/** What an attempt records when the exchange could not sign the delivery, and so did not send it. */
const UNSIGNED =
  "not sent: the exchange could not open this subscription's signing secret (its operators are told)";
/** Finished events are kept this long for the deliveries list, then pruned. */
const RETENTION_DAYS = 30;

export interface WebhookSettings {
  timeoutMs: number;
}

export interface NewSubscription {
  url: string;
  events?: WebhookEventType[] | undefined;
  description?: string | undefined;
}

/** Subscriptions, their delivery history, and the worker that sends what the outbox holds. */
export class WebhooksService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly webhooks: WebhooksRepository,
    private readonly guard: UrlGuard,
    private readonly secrets: WebhookSecrets,
    private readonly settings: WebhookSettings,
  ) {}

  async list(userId: number) {
    return { data: (await this.webhooks.listOf(this.db, userId)).map(toSubscriptionView) };
  }

  async create(userId: number, input: NewSubscription) {
    const problem = await this.guard.problemWith(input.url);
    if (problem) throw new ValidationError(`url ${problem}`, [{ field: 'body.url', message: problem }]);
    const eventTypes = input.events && input.events.length > 0 ? [...new Set(input.events)] : null;
    const secret = newSigningSecret();
    const row = await this.db.transaction().execute(async (trx) => {
      await this.webhooks.lockUser(trx, userId);
      if ((await this.webhooks.countOf(trx, userId)) >= MAX_SUBSCRIPTIONS) {
        throw new WebhookLimitReachedError(MAX_SUBSCRIPTIONS);
      }
      return this.webhooks.insert(trx, {
        userId,
        url: input.url,
        description: input.description?.trim() || null,
        eventTypes,
        secret: this.secrets.seal(userId, secret),
      });
    });
    return { ...toSubscriptionView(row), secret };
  }

  async remove(userId: number, id: number): Promise<void> {
    if (!(await this.webhooks.remove(this.db, userId, id))) throw new NotFoundError('Webhook subscription');
  }

  async deliveries(userId: number, subscriptionId: number, limit: number, cursor?: string) {
    const subscription = await this.webhooks.find(this.db, userId, subscriptionId);
    if (!subscription) throw new NotFoundError('Webhook subscription');
    const decoded = decodeCursor(cursor, 1);
    const rows = await this.webhooks.listDeliveries(
      this.db,
      subscriptionId,
      decoded ? Number(decoded[0]) : null,
      limit,
    );
    const attempts = await this.webhooks.attemptsOf(
      this.db,
      rows.slice(0, limit).map((r) => r.id),
    );
    return toPage(
      rows,
      limit,
      (row) => toDeliveryView(row, attempts),
      (row) => [row.id],
    );
  }

  /** Every user's deliveries for the operators, newest first, optionally of one status. */
  async allDeliveries(filter: {
    status?: 'pending' | 'succeeded' | 'failed' | undefined;
    limit: number;
    cursor?: string | undefined;
  }) {
    const decoded = decodeCursor(filter.cursor, 1);
    const rows = await this.webhooks.listAllDeliveries(this.db, {
      status: filter.status ?? null,
      beforeId: decoded ? Number(decoded[0]) : null,
      limit: filter.limit,
    });
    const attempts = await this.webhooks.attemptsOf(
      this.db,
      rows.slice(0, filter.limit).map((r) => r.id),
    );
    return toPage(
      rows,
      filter.limit,
      (row) => ({
        ...toDeliveryView(row, attempts),
        subscriptionId: String(row.subscription_id),
        url: row.url,
        owner: { id: String(row.user_id), username: row.username },
      }),
      (row) => [row.id],
    );
  }

  /**
   * Job: sends the deliveries that are due, a batch at a time. Safe on any number of instances: each delivery
   * is claimed with FOR UPDATE SKIP LOCKED and leased for one attempt. A delivery whose secret does not open (its
   * key gone from the keyring) is not sent: its attempt records why and the job fails, so that the log says so.
   */
  async deliverDue(): Promise<number> {
    const claimed = await this.webhooks.claimDue(this.db, CLAIM_BATCH, this.settings.timeoutMs + 60_000);
    const failures = await Promise.all(claimed.map((delivery) => this.attempt(delivery)));
    const unsigned = failures.find((failure) => failure !== null);
    if (unsigned) throw unsigned;
    return claimed.length;
  }

  /** Job: removes finished events older than the retention period. */
  pruneFinished(): Promise<number> {
    return this.webhooks.pruneFinished(this.db, RETENTION_DAYS, 500);
  }

  /** Sends one delivery and records the attempt; the error when its secret did not open, else null. */
  private async attempt(delivery: ClaimedDelivery): Promise<Error | null> {
    const attemptedAt = new Date();
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    let secret: string;
    try {
      secret = this.secrets.open(delivery.user_id, delivery.secret);
    } catch (error) {
      const unsigned = { ok: false, durationMs: 0, statusCode: null, error: UNSIGNED };
      await this.record(delivery, attemptedAt, unsigned);
      return error as Error;
    }
    const result = await sendWebhook(
      new URL(delivery.url),
      {
        'webhook-id': delivery.message_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(secret, delivery.message_id, timestamp, delivery.body),
      },
      delivery.body,
      { timeoutMs: this.settings.timeoutMs, guard: this.guard, userAgent: 'pmx-webhooks/1.0' },
    );
    await this.record(delivery, attemptedAt, result);
    return null;
  }

  private async record(delivery: ClaimedDelivery, attemptedAt: Date, result: SendResult): Promise<void> {
    const exhausted = delivery.attempt_count >= MAX_ATTEMPTS;
    await this.db.transaction().execute((trx) =>
      this.webhooks.recordAttempt(trx, {
        deliveryId: delivery.id,
        attemptCount: delivery.attempt_count,
        attemptedAt,
        durationMs: result.durationMs,
        statusCode: result.statusCode,
        error: result.error,
        outcome: result.ok ? 'succeeded' : exhausted ? 'failed' : 'pending',
        retryInMs:
          result.ok || exhausted ? null : (RETRY_DELAYS_SECONDS[delivery.attempt_count - 1] as number) * 1000,
      }),
    );
  }
}

function toSubscriptionView(row: SubscriptionRow) {
  return {
    id: String(row.id),
    url: row.url,
    description: row.description,
    events: row.event_types,
    createdAt: row.created_at.toISOString(),
  };
}

interface DeliveryRow {
  id: number;
  message_id: string;
  type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  next_attempt_at: Date;
  created_at: Date;
  completed_at: Date | null;
}

function toDeliveryView(row: DeliveryRow, attempts: AttemptRow[]) {
  return {
    id: String(row.id),
    eventId: row.message_id,
    type: row.type,
    status: row.status,
    attemptCount: row.attempt_count,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at ? row.completed_at.toISOString() : null,
    attempts: attempts.filter((a) => a.delivery_id === row.id).map(toAttemptView),
  };
}

function toAttemptView(row: AttemptRow) {
  return {
    attemptedAt: row.attempted_at.toISOString(),
    statusCode: row.status_code,
    error: row.error,
    durationMs: row.duration_ms,
    nextAttemptAt: row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
  };
}

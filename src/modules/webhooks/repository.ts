import { type Selectable, sql } from 'kysely';
import type { Queryable, Tx } from '../../platform/db/types.js';
import type { DeliveryStatus, WebhookAttemptsTable, WebhookSubscriptionsTable } from './tables.js';

export type SubscriptionRow = Selectable<WebhookSubscriptionsTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

export interface NewOutboxEvent {
  messageId: string;
  userId: number;
  type: string;
  body: string;
  subscriptionIds: number[];
}

export interface ClaimedDelivery {
  id: number;
  attempt_count: number;
  message_id: string;
  body: string;
  url: string;
  /** The owner of the subscription, whose id the sealed secret is bound to. */
  user_id: number;
  /** The signing secret as stored: sealed (or, before the first start that seals them, plain). */
  secret: string;
}

export class WebhooksRepository {
  /** Serialises subscription changes of one user, so the per-user limit holds under concurrent requests. */
  async lockUser(trx: Tx, userId: number): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(hashtext(${`webhook-subscriptions:${userId}`}))`.execute(trx);
  }

  async countOf(db: Queryable, userId: number): Promise<number> {
    const row = await db
      .selectFrom('webhook_subscriptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  insert(
    db: Queryable,
    row: {
      userId: number;
      url: string;
      description: string | null;
      eventTypes: string[] | null;
      secret: string;
    },
  ): Promise<SubscriptionRow> {
    return db
      .insertInto('webhook_subscriptions')
      .values({
        user_id: row.userId,
        url: row.url,
        description: row.description,
        event_types: row.eventTypes === null ? null : JSON.stringify(row.eventTypes),
        secret: row.secret,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  listOf(db: Queryable, userId: number): Promise<SubscriptionRow[]> {
    return db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id')
      .execute();
  }

  find(db: Queryable, userId: number, id: number): Promise<SubscriptionRow | undefined> {
    return db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }

  async remove(db: Queryable, userId: number, id: number): Promise<boolean> {
    const result = await db
      .deleteFrom('webhook_subscriptions')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** The subscriptions of these users and the types each wants: one indexed read per change that may publish. */
  subscriptionsOf(db: Queryable, userIds: number[]) {
    if (userIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('webhook_subscriptions')
      .select(['id', 'user_id', 'event_types'])
      .where('user_id', '=', sql<number>`ANY(${userIds}::bigint[])`)
      .execute();
  }

  /** Writes events and their deliveries (due at once) in the caller's transaction. */
  async insertEvents(db: Queryable, events: NewOutboxEvent[]): Promise<void> {
    if (events.length === 0) return;
    const rows = await db
      .insertInto('webhook_events')
      .values(events.map((e) => ({ message_id: e.messageId, user_id: e.userId, type: e.type, body: e.body })))
      .returning(['id', 'message_id'])
      .execute();
    const idOf = new Map(rows.map((r) => [r.message_id, r.id]));
    const deliveries = events.flatMap((e) =>
      e.subscriptionIds.map((subscriptionId) => ({
        event_id: idOf.get(e.messageId) as number,
        subscription_id: subscriptionId,
      })),
    );
    await db.insertInto('webhook_deliveries').values(deliveries).execute();
  }

  /**
   * Claims due deliveries for one attempt each: counts the attempt and pushes the due time past the attempt's
   * lease, so another worker takes the delivery over only if this one dies mid-attempt (at-least-once).
   */
  async claimDue(db: Queryable, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const result = await sql<ClaimedDelivery>`
      WITH due AS (
        SELECT id FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= now()
        ORDER BY next_attempt_at, id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ), claimed AS (
        UPDATE webhook_deliveries d
        SET attempt_count = d.attempt_count + 1,
            next_attempt_at = now() + ${leaseMs}::float8 * interval '1 millisecond'
        FROM due WHERE d.id = due.id
        RETURNING d.id, d.attempt_count, d.event_id, d.subscription_id
      )
      SELECT c.id, c.attempt_count, e.message_id, e.body, s.url, s.user_id, s.secret
      FROM claimed c
      JOIN webhook_events e ON e.id = c.event_id
      JOIN webhook_subscriptions s ON s.id = c.subscription_id
      ORDER BY c.id`.execute(db);
    return result.rows;
  }

  /**
   * Records one attempt and what follows it: delivered, retried after `retryInMs`, or failed for good (null).
   * A worker whose lease was taken over (the attempt count moved on) records nothing.
   */
  async recordAttempt(
    trx: Tx,
    attempt: {
      deliveryId: number;
      attemptCount: number;
      attemptedAt: Date;
      durationMs: number;
      statusCode: number | null;
      error: string | null;
      outcome: DeliveryStatus;
      retryInMs: number | null;
    },
  ): Promise<boolean> {
    const retry = attempt.retryInMs;
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({
        status: attempt.outcome,
        next_attempt_at:
          retry === null ? sql<Date>`now()` : sql<Date>`now() + ${retry}::float8 * interval '1 millisecond'`,
        completed_at: attempt.outcome === 'pending' ? null : sql<Date>`now()`,
      })
      .where('id', '=', attempt.deliveryId)
      .where('attempt_count', '=', attempt.attemptCount)
      .where('status', '=', 'pending')
      .returning('next_attempt_at')
      .executeTakeFirst();
    if (!updated) return false;
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: attempt.deliveryId,
        attempted_at: attempt.attemptedAt,
        duration_ms: attempt.durationMs,
        status_code: attempt.statusCode,
        error: attempt.error,
        next_attempt_at: attempt.outcome === 'pending' ? updated.next_attempt_at : null,
      })
      .execute();
    return true;
  }

  listDeliveries(db: Queryable, subscriptionId: number, beforeId: number | null, limit: number) {
    let query = db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .select([
        'd.id',
        'd.status',
        'd.attempt_count',
        'd.next_attempt_at',
        'd.created_at',
        'd.completed_at',
        'e.message_id',
        'e.type',
      ])
      .where('d.subscription_id', '=', subscriptionId)
      .orderBy('d.id', 'desc')
      .limit(limit + 1);
    if (beforeId !== null) query = query.where('d.id', '<', beforeId);
    return query.execute();
  }

  /** Every user's deliveries, newest first, optionally of one status, with their subscription and its owner. */
  listAllDeliveries(
    db: Queryable,
    filter: { status: 'pending' | 'succeeded' | 'failed' | null; beforeId: number | null; limit: number },
  ) {
    let query = db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .select([
        'd.id',
        'd.status',
        'd.attempt_count',
        'd.next_attempt_at',
        'd.created_at',
        'd.completed_at',
        'e.message_id',
        'e.type',
        's.id as subscription_id',
        's.url',
        'u.id as user_id',
        'u.username',
      ])
      .orderBy('d.id', 'desc')
      .limit(filter.limit + 1);
    if (filter.status !== null) query = query.where('d.status', '=', filter.status);
    if (filter.beforeId !== null) query = query.where('d.id', '<', filter.beforeId);
    return query.execute();
  }

  attemptsOf(db: Queryable, deliveryIds: number[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', 'in', deliveryIds)
      .orderBy('id')
      .execute();
  }

  /** Deletes old events whose deliveries are all finished (their deliveries and attempts go with them). */
  async pruneFinished(db: Queryable, olderThanDays: number, limit: number): Promise<number> {
    const result = await sql`
      DELETE FROM webhook_events WHERE id IN (
        SELECT e.id FROM webhook_events e
        WHERE e.created_at < now() - ${olderThanDays}::float8 * interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
        ORDER BY e.created_at
        LIMIT ${limit}
      )`.execute(db);
    return Number(result.numAffectedRows ?? 0);
  }
}

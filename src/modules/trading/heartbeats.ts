import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { OrderCancels } from './cancels.js';
import type { HeartbeatRepository, HeartbeatRow } from './heartbeat-repository.js';

/** What a credential's dead man's switch shows its owner. */
export interface HeartbeatView {
  armed: boolean;
  timeoutSeconds: number | null;
  lastBeatAt: string | null;
  /** When the switch goes off unless another heartbeat comes first; null while disarmed. */
  expiresAt: string | null;
  /** The last time it went off, and how many orders it cancelled then. */
  firedAt: string | null;
  cancelledOrders: number;
}

/**
 * The dead man's switch (cancel on silence): a client arms it with a timeout and keeps sending heartbeats; when
 * none has come for the timeout, every resting order its credential placed is cancelled, as a cancel-all would,
 * and the switch is disarmed until the next heartbeat. The state is in the database and every instance's job looks
 * for switches that went off, so it holds whichever instance received the heartbeats, and across restarts.
 */
export class HeartbeatService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly heartbeats: HeartbeatRepository,
    private readonly cancels: Pick<OrderCancels, 'cancelAll'>,
  ) {}

  /**
   * A heartbeat: arms the switch, or pushes its expiry `timeoutSeconds` on. One that comes after the switch's time
   * was up finds the orders already cancelled (or cancels them first, if no job has yet), and arms it anew.
   */
  async beat(userId: number, credential: string, timeoutSeconds: number): Promise<HeartbeatView> {
    const known = await this.heartbeats.find(this.db, credential);
    if (known?.expires_at && known.expires_at <= known.db_now)
      await this.fire(userId, credential, known.expires_at);
    return viewOf(await this.heartbeats.beat(this.db, credential, userId, timeoutSeconds * 1000));
  }

  async status(credential: string): Promise<HeartbeatView> {
    return viewOf(await this.heartbeats.find(this.db, credential));
  }

  /** Disarms the switch: nothing is cancelled, however long the silence. */
  async disarm(credential: string): Promise<HeartbeatView> {
    return viewOf(await this.heartbeats.disarm(this.db, credential));
  }

  /** The job: cancels the orders of every credential whose switch went off; returns how many switches. */
  async fireLapsed(limit = 50): Promise<number> {
    const due = await this.heartbeats.due(this.db, limit);
    for (const { credential, user_id, expires_at } of due)
      if (expires_at) await this.fire(user_id, credential, expires_at);
    return due.length;
  }

  /**
   * Cancels what the credential placed before its switch's time ran out (`lapsedAt`): an order placed after that
   * (by a client that has since sent a heartbeat and armed the switch anew) is not the switch's to cancel.
   */
  private async fire(userId: number, credential: string, lapsedAt: Date): Promise<void> {
    const { cancelled, markets } = await this.cancels.cancelAll(
      userId,
      { placedBy: credential, placedBefore: lapsedAt },
      'heartbeat_lapsed',
    );
    // A market that refused (busy, the database failing) keeps the switch armed: the next run cancels the rest.
    const refused = markets.find((market) => market.refusedCount > 0);
    if (refused) throw refused.error;
    await this.heartbeats.fired(this.db, credential, cancelled.length);
  }
}

function viewOf(row: HeartbeatRow | undefined): HeartbeatView {
  return {
    armed: Boolean(row?.expires_at),
    timeoutSeconds: row ? Math.round(row.timeout_ms / 1000) : null,
    lastBeatAt: row?.last_beat_at.toISOString() ?? null,
    expiresAt: row?.expires_at?.toISOString() ?? null,
    firedAt: row?.fired_at?.toISOString() ?? null,
    cancelledOrders: row?.cancelled_orders ?? 0,
  };
}

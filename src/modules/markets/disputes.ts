import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { decodeCursor, toPage } from '../../platform/http.js';
import type { NotificationsService } from '../notifications/service.js';
import type { TradingReads } from '../trading/reads.js';
import type { CatalogueChanges } from './changes.js';
import type { DisputeRow, DisputesRepository } from './disputes-repository.js';
import {
  AlreadyDisputedError,
  DisputeAlreadyDecidedError,
  DisputeWindowClosedError,
  EventNotResolvedError,
} from './errors.js';
import type { LifecycleSettings, MarketLifecycle, OptionOutcomes } from './lifecycle.js';
import type { MarketsRepository } from './repository.js';
import { toDisputeView } from './views.js';

/**
 * Disputes of a resolution: by a trader who held a position in the event, inside the dispute window. Upholding one
 * replaces the outcomes before anything is paid, so no payout is ever reversed.
 */
export class MarketDisputes {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly markets: MarketsRepository,
    private readonly disputes: DisputesRepository,
    private readonly trading: Pick<TradingReads, 'hasHeldPosition'>,
    private readonly notifications: NotificationsService,
    private readonly changes: CatalogueChanges,
    private readonly lifecycle: MarketLifecycle,
    private readonly settings: LifecycleSettings,
  ) {}

  async dispute(
    userId: number,
    eventId: number,
    input: { reason: string; evidenceUrl?: string | undefined },
  ) {
    return this.db.transaction().execute(async (trx) => {
      const event = await this.markets.findEventById(trx, eventId);
      if (!event || event.status === 'draft') throw new NotFoundError('Event');
      if (!(await this.trading.hasHeldPosition(trx, userId, eventId))) {
        throw new ForbiddenError('Only traders who held a position in this event can dispute it');
      }
      if (event.status === 'open' || event.status === 'closed') throw new EventNotResolvedError();
      if (
        event.status === 'settled' ||
        !event.resolved_at ||
        this.windowEnd(event.resolved_at) <= new Date()
      ) {
        throw new DisputeWindowClosedError();
      }
      const row = await this.disputes.insert(trx, {
        eventId,
        userId,
        reason: input.reason,
        evidenceUrl: input.evidenceUrl ?? null,
      });
      if (!row) throw new AlreadyDisputedError();
      return toDisputeView({ ...row, event_slug: event.slug });
    });
  }

  async listDisputes(status: DisputeRow['status'] | null, limit: number, cursor?: string) {
    const decoded = decodeCursor(cursor, 1);
    const rows = await this.disputes.list(this.db, status, decoded ? Number(decoded[0]) : null, limit);
    return toPage(
      rows,
      limit,
      (row) => ({ ...toDisputeView(row), username: row.username }),
      (row) => [row.id],
    );
  }

  /**
   * Upholding a dispute replaces the outcomes before anything is paid, and restarts the dispute window for the
   * corrected resolution; rejecting it lets settlement proceed.
   */
  async decideDispute(
    adminId: number | null,
    disputeId: number,
    decision: {
      decision: 'upheld' | 'rejected';
      note?: string | undefined;
      outcomes?: OptionOutcomes | undefined;
    },
  ) {
    return this.changes.run(async (trx, changed) => {
      const dispute = await this.disputes.lock(trx, disputeId);
      if (!dispute) throw new NotFoundError('Dispute');
      const event = await this.lifecycle.lockEvent(trx, dispute.event_id);
      if (dispute.status !== 'pending') throw new DisputeAlreadyDecidedError();
      if (decision.decision === 'upheld') {
        if (!decision.outcomes) {
          throw new ValidationError('An upheld dispute needs the corrected outcomes', [
            { field: 'body.outcomes', message: 'is required when the decision is upheld' },
          ]);
        }
        await this.lifecycle.applyOutcomes(trx, event, decision.outcomes);
        await this.markets.setEventStatus(trx, event.id, 'resolved', 'resolved_at');
        changed(event.id);
      }
      const decided = await this.disputes.decide(trx, disputeId, {
        status: decision.decision,
        note: decision.note ?? null,
        decidedBy: adminId,
      });
      await this.notifications.notify(trx, {
        userId: dispute.user_id,
        type: 'dispute.decided',
        title: `Your dispute of ${event.title} was ${decision.decision}`,
        body:
          decision.note ??
          (decision.decision === 'upheld' ? 'The outcome was corrected.' : 'The outcome stands.'),
        data: { disputeId: String(disputeId), eventSlug: event.slug, decision: decision.decision },
      });
      return toDisputeView({ ...decided, event_slug: event.slug });
    });
  }

  private windowEnd(resolvedAt: Date): Date {
    return new Date(resolvedAt.getTime() + this.settings.disputeWindowHours * 3_600_000);
  }
}

import type { Kysely } from 'kysely';
import type { Outcome } from '../../exchange/positions.js';
import { yesPayoutOf } from '../../exchange/positions.js';
import { voidPayouts } from '../../exchange/settlement.js';
import type { DB } from '../../platform/db/schema.js';
import type { Tx } from '../../platform/db/types.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import type { NotificationsService } from '../notifications/service.js';
import type { TradingService } from '../trading/service.js';
import type { SettlementService } from '../trading/settlement.js';
import type { MarketCatalogue } from './catalogue.js';
import type { CatalogueChanges } from './changes.js';
import type { DisputesRepository } from './disputes-repository.js';
import { DisputePendingError, InvalidTransitionError } from './errors.js';
import { LifecycleRepository } from './lifecycle-repository.js';
import type { EventRow, MarketsRepository, OptionRow } from './repository.js';
import { formatCents, shownPrices } from './views.js';

export interface LifecycleSettings {
  disputeWindowHours: number;
}

export type OptionOutcomes = { optionId: string; outcome: Outcome }[];

/**
 * The life of an event after it is created: draft → open → closed (by an operator, or at its closing time) →
 * resolved (an outcome per option) → settled (paid, after the dispute window), each step in one transaction.
 */
export class MarketLifecycle {
  private readonly rows = new LifecycleRepository();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly markets: MarketsRepository,
    private readonly disputes: DisputesRepository,
    private readonly exchange: {
      trading: Pick<TradingService, 'lockEventMarkets' | 'closeOption'>;
      settlement: Pick<SettlementService, 'previewSettlement' | 'settleOption'>;
    },
    private readonly notifications: NotificationsService,
    private readonly changes: CatalogueChanges,
    private readonly catalogue: MarketCatalogue,
    private readonly settings: LifecycleSettings,
  ) {}

  async openEvent(id: number) {
    await this.changes.run(async (trx, changed) => {
      const event = await this.lockEvent(trx, id);
      if (event.status !== 'draft') throw new InvalidTransitionError('open', event.status);
      if (event.closes_at.getTime() <= Date.now()) {
        throw new ValidationError('closesAt is in the past; edit it before opening', [
          { field: 'closesAt', message: 'is in the past' },
        ]);
      }
      await this.markets.setEventStatus(trx, id, 'open', 'opened_at');
      changed(id);
    });
    return this.catalogue.adminView(id);
  }

  async closeEvent(id: number) {
    await this.changes.run(async (trx, changed) => {
      const event = await this.lockEvent(trx, id);
      if (event.status !== 'open') throw new InvalidTransitionError('close', event.status);
      await this.closeInTransaction(trx, event);
      changed(id);
    });
    return this.catalogue.adminView(id);
  }

  /**
   * Stops trading: every open order is cancelled and its reservation released, market by market. The event's markets
   * are all locked first, in the pipeline's order, before any balance is touched.
   */
  private async closeInTransaction(trx: Tx, event: EventRow): Promise<void> {
    await this.exchange.trading.lockEventMarkets(trx, event.id);
    for (const option of await this.markets.optionsOf(trx, [event.id])) {
      await this.exchange.trading.closeOption(trx, option.id);
    }
    await this.markets.setEventStatus(trx, event.id, 'closed', 'closed_at');
  }

  /** Sets the outcome of every option (closing the event first if it is still open). */
  async resolveEvent(id: number, outcomes: OptionOutcomes) {
    await this.changes.run(async (trx, changed) => {
      const event = await this.lockEvent(trx, id);
      if (event.status === 'open') await this.closeInTransaction(trx, event);
      else if (event.status !== 'closed') throw new InvalidTransitionError('resolve', event.status);
      await this.applyOutcomes(trx, event, outcomes);
      await this.markets.setEventStatus(trx, event.id, 'resolved', 'resolved_at');
      await this.notifyHolders(trx, event, 'market.resolved', (label, outcome) => ({
        title: `${event.title}: resolved`,
        body: `"${label}" resolved ${outcome}. Payouts follow after the ${this.settings.disputeWindowHours}-hour dispute window.`,
      }));
      changed(event.id);
    });
    return this.catalogue.adminView(id);
  }

  /**
   * Sets every option's outcome: exactly one for each option; for an exclusive event exactly one YES and the rest
   * NO, or all VOID (400 with the reason otherwise). Used by resolution and by an upheld dispute.
   */
  async applyOutcomes(trx: Tx, event: EventRow, outcomes: OptionOutcomes): Promise<void> {
    await this.exchange.trading.lockEventMarkets(trx, event.id);
    const options = await this.markets.optionsOf(trx, [event.id]);
    const given = new Map(outcomes.map((o) => [Number(o.optionId), o.outcome]));
    const unknown = [...given.keys()].filter((optionId) => !options.some((o) => o.id === optionId));
    const missing = options.filter((o) => !given.has(o.id));
    if (unknown.length || missing.length || given.size !== outcomes.length) {
      throw new ValidationError('Give exactly one outcome (YES, NO or VOID) for every option of the event', [
        ...unknown.map((optionId) => ({
          field: 'body.outcomes',
          message: `option ${optionId} is not in this event`,
        })),
        ...missing.map((o) => ({
          field: 'body.outcomes',
          message: `option ${o.id} (${o.label}) has no outcome`,
        })),
      ]);
    }
    if (event.exclusive) checkExclusiveOutcomes(options, given);
    // A voided exclusive event shares 100 out over its options' YES shares, so that a complete set pays 100.
    const voided = event.exclusive ? voidPayouts(options.map((o) => o.id)) : new Map<number, number>();
    for (const [optionId, outcome] of given) {
      const yesPayoutCents = yesPayoutOf(outcome, voided.get(optionId));
      await this.rows.setOptionResolution(trx, optionId, outcome, yesPayoutCents);
    }
  }

  /**
   * What settling a resolved event would pay, option by option: how much to how many holders, and to the house
   * (its market maker and conversion pool). 409 INVALID_TRANSITION unless the event is resolved.
   */
  async settlementPreview(id: number) {
    const event = await this.markets.findEventById(this.db, id);
    if (!event) throw new NotFoundError('Event');
    if (event.status !== 'resolved') throw new InvalidTransitionError('settle', event.status);
    const options = await this.markets.optionsOf(this.db, [id]);
    const holders = new Set<number>();
    const previews: {
      optionId: string;
      label: string;
      outcome: Outcome;
      holders: number;
      payoutCents: number;
      housePayoutCents: number;
    }[] = [];
    for (const option of options) {
      const outcome = option.resolution ?? 'VOID';
      const preview = await this.exchange.settlement.previewSettlement(
        option,
        option.yes_payout_cents ?? yesPayoutOf(outcome),
      );
      for (const userId of preview.holderIds) holders.add(userId);
      previews.push({
        optionId: String(option.id),
        label: option.label,
        outcome,
        holders: preview.holderIds.length,
        payoutCents: preview.payoutCents,
        housePayoutCents: preview.housePayoutCents,
      });
    }
    const sum = (key: 'payoutCents' | 'housePayoutCents') => previews.reduce((total, p) => total + p[key], 0);
    return {
      eventId: String(id),
      holders: holders.size,
      payoutCents: sum('payoutCents'),
      housePayoutCents: sum('housePayoutCents'),
      disputePending: await this.disputes.hasPending(this.db, id),
      options: previews,
    };
  }

  /** Settles now (an operator's decision to skip the rest of the window); never with a dispute pending. */
  async settleEvent(id: number) {
    await this.changes.run(async (trx, changed) => {
      const event = await this.lockEvent(trx, id);
      if (event.status !== 'resolved') throw new InvalidTransitionError('settle', event.status);
      if (await this.disputes.hasPending(trx, id)) throw new DisputePendingError();
      await this.settleInTransaction(trx, event);
      changed(id);
    });
    return this.catalogue.adminView(id);
  }

  private async settleInTransaction(trx: Tx, event: EventRow): Promise<void> {
    await this.exchange.trading.lockEventMarkets(trx, event.id);
    const options = await this.markets.optionsOf(trx, [event.id]);
    await this.rows.setClosingChances(trx, shownPrices(event, options));
    const paid = new Map<number, { payout: number; pnl: number }>();
    for (const option of options) {
      const outcome = option.resolution ?? 'VOID';
      const records = await this.exchange.settlement.settleOption(trx, option.id, event.id, {
        outcome,
        yesPayoutCents: option.yes_payout_cents ?? yesPayoutOf(outcome),
      });
      for (const record of records) {
        const total = paid.get(record.userId) ?? { payout: 0, pnl: 0 };
        total.payout += record.payoutCents;
        total.pnl += record.pnlCents;
        paid.set(record.userId, total);
      }
    }
    await this.markets.setEventStatus(trx, event.id, 'settled', 'settled_at');
    await this.notifications.notify(
      trx,
      [...paid.entries()].map(([userId, total]) => ({
        userId,
        type: 'market.settled',
        title: `${event.title}: settled`,
        body: `You were paid ${formatCents(total.payout)} (${total.pnl >= 0 ? 'profit' : 'loss'} ${formatCents(Math.abs(total.pnl))}).`,
        data: {
          eventId: String(event.id),
          eventSlug: event.slug,
          payoutCents: total.payout,
          pnlCents: total.pnl,
        },
      })),
    );
  }

  /** Job: settles resolved events whose dispute window has passed; safe on any number of instances. */
  async settleDueEvents(): Promise<number> {
    return this.changes.run(async (trx, changed) => {
      const due = await this.rows.claimSettleable(trx, this.settings.disputeWindowHours, 5);
      for (const { id } of due) {
        const event = await this.markets.findEventById(trx, id);
        if (event) await this.settleInTransaction(trx, event);
        changed(id);
      }
      return due.length;
    });
  }

  /** Job: closes open events whose closing time has come. */
  async closeDueEvents(): Promise<number> {
    return this.changes.run(async (trx, changed) => {
      const due = await this.rows.claimDueClosures(trx, 10);
      for (const { id } of due) {
        const event = await this.markets.findEventById(trx, id);
        if (event) await this.closeInTransaction(trx, event);
        changed(id);
      }
      return due.length;
    });
  }

  async lockEvent(trx: Tx, id: number): Promise<EventRow> {
    const event = await this.markets.lockEvent(trx, id);
    if (!event) throw new NotFoundError('Event');
    return event;
  }

  private async notifyHolders(
    trx: Tx,
    event: EventRow,
    type: string,
    text: (label: string, outcome: string) => { title: string; body: string },
  ) {
    const options = await this.markets.optionsOf(trx, [event.id]);
    const holders = await this.rows.holdersOf(trx, event.id);
    await this.notifications.notify(
      trx,
      holders.map((holder) => {
        const option = options.find((o) => o.id === holder.option_id);
        return {
          userId: holder.user_id,
          type,
          ...text(option?.label ?? '', option?.resolution ?? ''),
          data: {
            eventId: String(event.id),
            eventSlug: event.slug,
            optionId: String(holder.option_id),
            outcome: option?.resolution,
          },
        };
      }),
    );
  }
}

/** An exclusive event has one winner: exactly one option YES and every other NO, or every option VOID. */
function checkExclusiveOutcomes(options: OptionRow[], given: Map<number, Outcome>): void {
  const outcomes = options.map((o) => given.get(o.id));
  const yes = outcomes.filter((o) => o === 'YES').length;
  const voided = outcomes.filter((o) => o === 'VOID').length;
  if (voided === outcomes.length || (yes === 1 && voided === 0)) return;
  const reason =
    voided > 0
      ? 'VOID applies to every option of an exclusive event or to none'
      : yes === 0
        ? 'one option must resolve YES'
        : `${yes} options resolve YES, but exactly one can win`;
  throw new ValidationError(
    `An exclusive event resolves with exactly one option YES and every other NO, or every option VOID: ${reason}`,
    [{ field: 'body.outcomes', message: reason }],
  );
}

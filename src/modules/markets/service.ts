import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { LadderLevel } from '../../exchange/ladder.js';
import { ammPrice, offsetForPrice } from '../../exchange/lmsr.js';
import { PAYOUT_CENTS } from '../../exchange/money.js';
import type { Outcome } from '../../exchange/positions.js';
import type { DB } from '../../platform/db/schema.js';
import type { Tx } from '../../platform/db/types.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { decodeCursor, toPage } from '../../platform/http.js';
import type { LedgerRepository } from '../ledger/repository.js';
import type { NotificationsService } from '../notifications/service.js';
import { houseMakerOf } from '../trading/rows.js';
import type { TradingService } from '../trading/service.js';
import type { DisputeRow, DisputesRepository } from './disputes-repository.js';
import {
  AlreadyDisputedError,
  DisputeAlreadyDecidedError,
  DisputePendingError,
  DisputeWindowClosedError,
  EventNotResolvedError,
  InvalidTransitionError,
  SlugTakenError,
} from './errors.js';
import type { EventPatch, EventRow, MarketsRepository, OptionRow } from './repository.js';

export interface MarketsSettings {
  disputeWindowHours: number;
}

export interface NewOptionInput {
  label: string;
  liquidityCents?: number | undefined;
  initialPriceCents?: number | undefined;
}

export interface NewEventInput {
  slug?: string | undefined;
  title: string;
  description?: string | undefined;
  category: string;
  featured?: boolean | undefined;
  resolutionSource?: string | undefined;
  closesAt: string;
  options: NewOptionInput[];
  open?: boolean | undefined;
}

export type PriceRange = '1d' | '1w' | '1m' | 'all';
const RANGE_MS: Record<PriceRange, number | null> = {
  '1d': 86_400_000,
  '1w': 7 * 86_400_000,
  '1m': 30 * 86_400_000,
  all: null,
};
const HISTORY_POINTS = 200;

/** Told in this process, after commit, of every change to the public catalogue, with the events it changed. */
export type CatalogueListener = (eventIds: number[]) => void;

/** Which events each listing shows by default: everything but drafts. */
const PUBLIC_STATUSES = ['open', 'closed', 'resolved', 'settled'];

/**
 * Markets: the catalogue of events and options, their public views (prices, history, order book, leaderboard)
 * and their lifecycle draft → open → closed → resolved → settled, with disputes before settlement.
 */
export class MarketsService {
  private readonly catalogueListeners: CatalogueListener[] = [];

  constructor(
    private readonly db: Kysely<DB>,
    private readonly markets: MarketsRepository,
    private readonly disputes: DisputesRepository,
    private readonly trading: TradingService,
    private readonly ledger: LedgerRepository,
    private readonly notifications: NotificationsService,
    private readonly settings: MarketsSettings,
  ) {}

  /** Listens to committed changes of events and options made here (creation, edits, lifecycle, outcomes). */
  onCatalogueChanged(listener: CatalogueListener): void {
    this.catalogueListeners.push(listener);
  }

  /**
   * Runs a change to the catalogue in one transaction. The events `work` marks as changed are announced with
   * NOTIFY inside it, so every instance hears of it exactly when it commits, and to this process's listeners once
   * it has committed, before the caller gets its answer.
   */
  private async changeCatalogue<T>(
    work: (trx: Tx, changed: (eventId: number) => void) => Promise<T>,
  ): Promise<T> {
    const eventIds = new Set<number>();
    const result = await this.db.transaction().execute(async (trx) => {
      const value = await work(trx, (eventId) => eventIds.add(eventId));
      if (eventIds.size > 0) await this.markets.notifyCatalogueChanged(trx, [...eventIds]);
      return value;
    });
    if (eventIds.size > 0) for (const listener of this.catalogueListeners) listener([...eventIds]);
    return result;
  }

  // Public reads.

  async listEvents(query: {
    category?: string | undefined;
    featured?: boolean | undefined;
    q?: string | undefined;
    status?: string | undefined;
    limit: number;
    cursor?: string | undefined;
  }) {
    const cursor = decodeCursor(query.cursor, 1);
    const rows = await this.markets.listEvents(this.db, {
      category: query.category,
      featured: query.featured,
      q: query.q?.trim() || undefined,
      statuses: query.status ? [query.status] : PUBLIC_STATUSES,
      beforeId: cursor ? Number(cursor[0]) : null,
      limit: query.limit,
    });
    const options = await this.markets.optionsOf(
      this.db,
      rows.slice(0, query.limit).map((r) => r.id),
    );
    return toPage(
      rows,
      query.limit,
      (event) => ({
        ...toEventSummary(event),
        options: options.filter((o) => o.event_id === event.id).map((o) => toOptionView(o)),
      }),
      (event) => [event.id],
    );
  }

  async getEvent(slug: string, range: PriceRange, includeDrafts = false) {
    const event = await this.markets.findEventBySlug(this.db, slug);
    if (!event || (event.status === 'draft' && !includeDrafts)) throw new NotFoundError('Event');
    return this.eventDetail(event, range);
  }

  async eventDetail(event: EventRow, range: PriceRange) {
    const options = await this.markets.optionsOf(this.db, [event.id]);
    const rangeMs = RANGE_MS[range];
    const history = await this.markets.priceHistory(
      this.db,
      options.map((o) => o.id),
      rangeMs === null ? null : new Date(Date.now() - rangeMs),
      HISTORY_POINTS,
    );
    const views = [];
    for (const option of options) {
      const levels = (await this.trading.book(option.id))?.levels ?? [];
      views.push({
        ...toOptionView(option),
        bestBidCents: levels.find((level) => level.side === 'bid')?.priceCents ?? null,
        bestAskCents: levels.find((level) => level.side === 'ask')?.priceCents ?? null,
        priceHistory: history
          .filter((point) => point.option_id === option.id)
          .map((point) => ({ t: point.t.toISOString(), yesPriceCents: point.price })),
      });
    }
    return {
      ...toEventSummary(event),
      openedAt: iso(event.opened_at),
      closedAt: iso(event.closed_at),
      resolvedAt: iso(event.resolved_at),
      settledAt: iso(event.settled_at),
      disputeWindowEndsAt:
        event.status === 'resolved' && event.resolved_at
          ? new Date(event.resolved_at.getTime() + this.settings.disputeWindowHours * 3_600_000).toISOString()
          : null,
      range,
      options: views,
    };
  }

  async lookup(slug: string) {
    const event = await this.markets.findEventBySlug(this.db, slug);
    if (!event || event.status === 'draft') throw new NotFoundError('Event');
    return { id: String(event.id), slug: event.slug, title: event.title, status: event.status };
  }

  async orderBook(optionId: number) {
    const found = await this.trading.book(optionId);
    if (!found || found.option.event_status === 'draft') throw new NotFoundError('Option');
    const { option, levels } = found;
    return {
      optionId: String(option.id),
      eventSlug: option.event_slug,
      optionLabel: option.label,
      lastYesPriceCents: option.last_yes_price,
      bookVersion: option.book_version,
      ...bothSides(levels),
    };
  }

  async leaderboard(limit: number) {
    const [profit, volume, predictions] = await Promise.all([
      this.markets.leaderboard(this.db, 'profit', limit),
      this.markets.leaderboard(this.db, 'volume', limit),
      this.markets.leaderboard(this.db, 'predictions', limit),
    ]);
    const rank = (rows: { user_id: number; username: string; value: number }[]) =>
      rows.map((row, index) => ({
        rank: index + 1,
        userId: String(row.user_id),
        username: row.username,
        value: Number(row.value),
      }));
    return { profit: rank(profit), volume: rank(volume), predictions: rank(predictions) };
  }

  async resolveOptionId(input: {
    optionId?: string | undefined;
    eventSlug?: string | undefined;
    optionLabel?: string | undefined;
  }) {
    if (input.optionId !== undefined) return Number(input.optionId);
    if (input.eventSlug !== undefined && input.optionLabel !== undefined) {
      const id = await this.markets.findOptionId(this.db, input.eventSlug, input.optionLabel);
      if (id === undefined)
        throw new NotFoundError(`Option "${input.optionLabel}" of event "${input.eventSlug}"`);
      return id;
    }
    throw new ValidationError('Name the option by optionId, or by eventSlug together with optionLabel', [
      { field: 'body.optionId', message: 'or eventSlug + optionLabel is required' },
    ]);
  }

  // Operators.

  async createEvent(input: NewEventInput) {
    const closesAt = new Date(input.closesAt);
    if (closesAt.getTime() <= Date.now()) {
      throw new ValidationError('closesAt must be in the future', [
        { field: 'body.closesAt', message: 'is in the past' },
      ]);
    }
    const labels = input.options.map((o) => o.label.trim().toLowerCase());
    if (new Set(labels).size !== labels.length) {
      throw new ValidationError('Option labels must be unique', [
        { field: 'body.options', message: 'has duplicate labels' },
      ]);
    }
    const slug = input.slug ?? slugify(input.title);
    const event = await this.changeCatalogue(async (trx, changed) => {
      if (await this.markets.slugTaken(trx, slug)) throw new SlugTakenError(slug);
      const event = await this.insertEventWithOptions(trx, {
        slug,
        title: input.title,
        description: input.description ?? '',
        category: input.category,
        featured: input.featured ?? false,
        resolutionSource: input.resolutionSource ?? null,
        closesAt,
        options: input.options,
      });
      if (input.open) await this.markets.setEventStatus(trx, event.id, 'open', 'opened_at');
      changed(event.id);
      return event;
    });
    return this.adminView(event.id);
  }

  /**
   * A draft event with plain options (no house liquidity), inside the caller's transaction: how an approved market
   * suggestion becomes a market. A given slug must be free; without one, the title's slug gets a suffix if taken.
   */
  async createDraftEvent(
    trx: Tx,
    input: {
      slug?: string | undefined;
      title: string;
      description: string;
      category: string;
      resolutionSource: string | null;
      closesAt: Date;
      optionLabels: string[];
    },
  ): Promise<{ id: number; slug: string }> {
    let slug = input.slug ?? slugify(input.title);
    if (await this.markets.slugTaken(trx, slug)) {
      if (input.slug !== undefined) throw new SlugTakenError(slug);
      const base = slug;
      do slug = `${base}-${randomBytes(3).toString('hex')}`;
      while (await this.markets.slugTaken(trx, slug));
    }
    const event = await this.insertEventWithOptions(trx, {
      ...input,
      slug,
      featured: false,
      options: input.optionLabels.map((label) => ({ label })),
    });
    return { id: event.id, slug };
  }

  /** The event row, its options and one escrow account per option. */
  private async insertEventWithOptions(
    trx: Tx,
    input: {
      slug: string;
      title: string;
      description: string;
      category: string;
      featured: boolean;
      resolutionSource: string | null;
      closesAt: Date;
      options: NewOptionInput[];
    },
  ): Promise<EventRow> {
    const event = await this.markets.insertEvent(trx, { ...input, category: input.category.toLowerCase() });
    for (const [index, option] of input.options.entries()) {
      const liquidityCents = option.liquidityCents ?? 0;
      const row = await this.markets.insertOption(trx, event.id, {
        label: option.label.trim(),
        sortOrder: index,
        liquidityCents,
        ammOffset: offsetForPrice(liquidityCents, option.initialPriceCents ?? 50),
      });
      await this.ledger.openEscrowAccount(trx, row.id);
    }
    return event;
  }

  async updateEvent(id: number, patch: EventPatch) {
    await this.changeCatalogue(async (trx, changed) => {
      const event = await this.lockEvent(trx, id);
      if (event.status !== 'draft' && event.status !== 'open')
        throw new InvalidTransitionError('edit', event.status);
      if (patch.closesAt && patch.closesAt.getTime() <= Date.now()) {
        throw new ValidationError('closesAt must be in the future', [
          { field: 'body.closesAt', message: 'is in the past' },
        ]);
      }
      await this.markets.updateEvent(trx, id, patch);
      changed(id);
    });
    return this.adminView(id);
  }

  /**
   * Edits an option of a draft (nothing can have traded it yet): its label, its house liquidity and the house
   * maker's starting price (kept where it is unless given). 409 INVALID_TRANSITION once the event has opened.
   */
  async updateDraftOption(
    eventId: number,
    optionId: number,
    patch: {
      label?: string | undefined;
      liquidityCents?: number | undefined;
      initialPriceCents?: number | undefined;
    },
  ) {
    await this.changeCatalogue(async (trx, changed) => {
      const event = await this.lockEvent(trx, eventId);
      if (event.status !== 'draft') throw new InvalidTransitionError('edit the options of', event.status);
      const option = (await this.markets.optionsOf(trx, [eventId])).find((o) => o.id === optionId);
      if (!option) throw new NotFoundError('Option');
      const liquidityCents = patch.liquidityCents ?? option.liquidity_b;
      const price = patch.initialPriceCents ?? displayYesPrice(option);
      await this.markets.updateOption(trx, optionId, {
        label: patch.label?.trim() ?? option.label,
        liquidityCents,
        ammOffset: offsetForPrice(liquidityCents, price),
      });
      changed(eventId);
    });
    return this.adminView(eventId);
  }

  async openEvent(id: number) {
    await this.changeCatalogue(async (trx, changed) => {
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
    return this.adminView(id);
  }

  async closeEvent(id: number) {
    await this.changeCatalogue(async (trx, changed) => {
      const event = await this.lockEvent(trx, id);
      if (event.status !== 'open') throw new InvalidTransitionError('close', event.status);
      await this.closeInTransaction(trx, event);
      changed(id);
    });
    return this.adminView(id);
  }

  /** Stops trading: every open order is cancelled and its reservation released, option by option. */
  private async closeInTransaction(trx: Tx, event: EventRow): Promise<void> {
    for (const option of await this.markets.optionsOf(trx, [event.id])) {
      await this.trading.closeOption(trx, option.id);
    }
    await this.markets.setEventStatus(trx, event.id, 'closed', 'closed_at');
  }

  /** Sets the outcome of every option (closing the event first if it is still open). */
  async resolveEvent(id: number, outcomes: { optionId: string; outcome: Outcome }[]) {
    await this.changeCatalogue(async (trx, changed) => {
      const event = await this.lockEvent(trx, id);
      if (event.status === 'open') await this.closeInTransaction(trx, event);
      else if (event.status !== 'closed') throw new InvalidTransitionError('resolve', event.status);
      await this.applyOutcomes(trx, event.id, outcomes);
      await this.markets.setEventStatus(trx, event.id, 'resolved', 'resolved_at');
      await this.notifyHolders(trx, event, 'market.resolved', (label, outcome) => ({
        title: `${event.title}: resolved`,
        body: `"${label}" resolved ${outcome}. Payouts follow after the ${this.settings.disputeWindowHours}-hour dispute window.`,
      }));
      changed(event.id);
    });
    return this.adminView(id);
  }

  private async applyOutcomes(trx: Tx, eventId: number, outcomes: { optionId: string; outcome: Outcome }[]) {
    const options = await this.markets.optionsOf(trx, [eventId]);
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
    for (const [optionId, outcome] of given) await this.markets.setOptionResolution(trx, optionId, outcome);
  }

  /**
   * What settling a resolved event would pay, option by option: how much to how many holders, and to the house
   * maker. 409 INVALID_TRANSITION unless the event is resolved.
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
      const preview = await this.trading.previewSettlement(option, outcome);
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
    await this.changeCatalogue(async (trx, changed) => {
      const event = await this.lockEvent(trx, id);
      if (event.status !== 'resolved') throw new InvalidTransitionError('settle', event.status);
      if (await this.disputes.hasPending(trx, id)) throw new DisputePendingError();
      await this.settleInTransaction(trx, event);
      changed(id);
    });
    return this.adminView(id);
  }

  private async settleInTransaction(trx: Tx, event: EventRow): Promise<void> {
    const options = await this.markets.optionsOf(trx, [event.id]);
    const paid = new Map<number, { payout: number; pnl: number }>();
    for (const option of options) {
      const records = await this.trading.settleOption(trx, option.id, event.id, option.resolution ?? 'VOID');
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
    return this.changeCatalogue(async (trx, changed) => {
      const due = await this.markets.claimSettleable(trx, this.settings.disputeWindowHours, 5);
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
    return this.changeCatalogue(async (trx, changed) => {
      const due = await this.markets.claimDueClosures(trx, 10);
      for (const { id } of due) {
        const event = await this.markets.findEventById(trx, id);
        if (event) await this.closeInTransaction(trx, event);
        changed(id);
      }
      return due.length;
    });
  }

  // Disputes.

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
      outcomes?: { optionId: string; outcome: Outcome }[] | undefined;
    },
  ) {
    return this.changeCatalogue(async (trx, changed) => {
      const dispute = await this.disputes.lock(trx, disputeId);
      if (!dispute) throw new NotFoundError('Dispute');
      const event = await this.lockEvent(trx, dispute.event_id);
      if (dispute.status !== 'pending') throw new DisputeAlreadyDecidedError();
      if (decision.decision === 'upheld') {
        if (!decision.outcomes) {
          throw new ValidationError('An upheld dispute needs the corrected outcomes', [
            { field: 'body.outcomes', message: 'is required when the decision is upheld' },
          ]);
        }
        await this.applyOutcomes(trx, event.id, decision.outcomes);
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

  async adminView(id: number) {
    const event = await this.markets.findEventById(this.db, id);
    if (!event) throw new NotFoundError('Event');
    return this.eventDetail(event, 'all');
  }

  async adminList(limit: number, cursor?: string, status?: string) {
    const decoded = decodeCursor(cursor, 1);
    const rows = await this.markets.listEvents(this.db, {
      statuses: status ? [status] : ['draft', ...PUBLIC_STATUSES],
      beforeId: decoded ? Number(decoded[0]) : null,
      limit,
    });
    return toPage(rows, limit, toEventSummary, (row) => [row.id]);
  }

  async findEventIdBySlugOrId(ref: string): Promise<number> {
    const event = /^\d+$/.test(ref)
      ? await this.markets.findEventById(this.db, Number(ref))
      : await this.markets.findEventBySlug(this.db, ref);
    if (!event) throw new NotFoundError('Event');
    return event.id;
  }

  async isEmpty(): Promise<boolean> {
    return (await this.markets.countEvents(this.db)) === 0;
  }

  private windowEnd(resolvedAt: Date): Date {
    return new Date(resolvedAt.getTime() + this.settings.disputeWindowHours * 3_600_000);
  }

  private async lockEvent(trx: Tx, id: number): Promise<EventRow> {
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
    const holders = await this.markets.holdersOf(trx, event.id);
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

/** The ladder (bids then asks, best first) from the YES and from the NO point of view. */
function bothSides(levels: LadderLevel[]) {
  const view = ({ priceCents, quantity, orders, houseQuantity }: LadderLevel) => ({
    priceCents,
    quantity,
    orders,
    houseQuantity,
  });
  const yesBids = levels.filter((level) => level.side === 'bid').map(view);
  const yesAsks = levels.filter((level) => level.side === 'ask').map(view);
  const flip = (level: ReturnType<typeof view>) => ({
    ...level,
    priceCents: PAYOUT_CENTS - level.priceCents,
  });
  return {
    yes: { bids: yesBids, asks: yesAsks },
    no: { bids: yesAsks.map(flip), asks: yesBids.map(flip) },
  };
}

/** The YES price shown for an option: its last trade, else the house maker's price, else even odds. */
export function displayYesPrice(option: OptionRow): number {
  if (option.last_yes_price !== null) return option.last_yes_price;
  const house = houseMakerOf(option);
  if (house) return Math.min(99, Math.max(1, Math.round(ammPrice(house))));
  return 50;
}

function toOptionView(option: OptionRow) {
  const yes = displayYesPrice(option);
  return {
    id: String(option.id),
    label: option.label,
    yesPriceCents: yes,
    noPriceCents: PAYOUT_CENTS - yes,
    probabilityBps: yes * 100,
    lastYesPriceCents: option.last_yes_price,
    volumeShares: option.volume_shares,
    volumeCents: option.volume_cents,
    houseLiquidityCents: option.liquidity_b,
    resolution: option.resolution,
  };
}

export function toEventSummary(event: EventRow) {
  return {
    id: String(event.id),
    slug: event.slug,
    title: event.title,
    description: event.description,
    category: event.category,
    featured: event.featured,
    status: event.status,
    resolutionSource: event.resolution_source,
    closesAt: event.closes_at.toISOString(),
    createdAt: event.created_at.toISOString(),
  };
}

function toDisputeView(row: DisputeRow & { event_slug: string }) {
  return {
    id: String(row.id),
    eventId: String(row.event_id),
    eventSlug: row.event_slug,
    userId: String(row.user_id),
    reason: row.reason,
    evidenceUrl: row.evidence_url,
    status: row.status,
    decisionNote: row.decision_note,
    createdAt: row.created_at.toISOString(),
    decidedAt: iso(row.decided_at),
  };
}

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}

export function slugify(title: string): string {
  const base = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return base || 'event';
}

function formatCents(cents: number): string {
  return `${(cents / 100).toFixed(2)} credits`;
}

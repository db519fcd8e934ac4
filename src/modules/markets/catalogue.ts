import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { Queryable } from '../../platform/db/types.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { decodeCursor, toPage } from '../../platform/http.js';
import type { TradingReads } from '../trading/reads.js';
import { MarketFiguresRepository } from './figures-repository.js';
import type { EventRow, MarketsRepository } from './repository.js';
import { bothSides, iso, shownPrices, toEventSummary, toOptionView, toOptionViews } from './views.js';

export interface CatalogueSettings {
  disputeWindowHours: number;
}

export type PriceRange = '1d' | '1w' | '1m' | 'all';
const RANGE_MS: Record<PriceRange, number | null> = {
  '1d': 86_400_000,
  '1w': 7 * 86_400_000,
  '1m': 30 * 86_400_000,
  all: null,
};
const HISTORY_POINTS = 200;

/** Which events each listing shows by default: everything but drafts. */
const PUBLIC_STATUSES = ['open', 'closed', 'resolved', 'settled'];

/**
 * The catalogue as traders and operators read it: events with their options' prices, books, the leaderboard. The
 * public reads (the list, an event's page, the slug lookup, the leaderboard) go to `publicReads`, which may be a
 * replica that never shows less than the primary (`Database.reads`); the rest, which orders and operators rely on,
 * to the primary.
 */
export class MarketCatalogue {
  private readonly figures = new MarketFiguresRepository();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly markets: MarketsRepository,
    private readonly trading: Pick<TradingReads, 'book'>,
    private readonly settings: CatalogueSettings,
    private readonly publicReads: Kysely<DB> = db,
  ) {}

  async listEvents(query: {
    ids?: number[] | undefined;
    category?: string | undefined;
    featured?: boolean | undefined;
    q?: string | undefined;
    status?: string | undefined;
    limit: number;
    cursor?: string | undefined;
  }) {
    const cursor = decodeCursor(query.cursor, 1);
    const rows = await this.markets.listEvents(this.publicReads, {
      ids: query.ids,
      category: query.category,
      featured: query.featured,
      q: query.q?.trim() || undefined,
      statuses: query.status ? [query.status] : PUBLIC_STATUSES,
      beforeId: cursor ? Number(cursor[0]) : null,
      limit: query.limit,
    });
    const options = await this.markets.optionsOf(
      this.publicReads,
      rows.slice(0, query.limit).map((r) => r.id),
    );
    return toPage(
      rows,
      query.limit,
      (event) => ({
        ...toEventSummary(event),
        options: toOptionViews(
          event,
          options.filter((o) => o.event_id === event.id),
        ),
      }),
      (event) => [event.id],
    );
  }

  /**
   * These options (of public events; unknown ids are left out) with their prices and their events' names, newest
   * event first, in each event the options in their order.
   */
  async optionsByIds(ids: number[]) {
    const wanted = new Set(ids);
    const events = await this.markets.eventsOfOptions(this.publicReads, ids, PUBLIC_STATUSES);
    const options = await this.markets.optionsOf(
      this.publicReads,
      events.map((event) => event.id),
    );
    return {
      data: events.flatMap((event) => {
        const own = options.filter((option) => option.event_id === event.id);
        const views = toOptionViews(event, own);
        return own.flatMap((option, index) =>
          wanted.has(option.id)
            ? [
                {
                  ...(views[index] as (typeof views)[number]),
                  eventId: String(event.id),
                  eventSlug: event.slug,
                  eventTitle: event.title,
                  eventStatus: event.status,
                  exclusive: event.exclusive,
                  closesAt: event.closes_at.toISOString(),
                },
              ]
            : [],
        );
      }),
    };
  }

  async getEvent(slug: string, range: PriceRange, includeDrafts = false) {
    const event = await this.markets.findEventBySlug(this.publicReads, slug);
    if (!event || (event.status === 'draft' && !includeDrafts)) throw new NotFoundError('Event');
    return this.eventDetail(event, range, this.publicReads);
  }

  async eventDetail(event: EventRow, range: PriceRange, db: Kysely<DB> = this.db) {
    const options = await this.markets.optionsOf(db, [event.id]);
    const rangeMs = RANGE_MS[range];
    const history = await this.figures.priceHistory(
      db,
      options.map((o) => o.id),
      rangeMs === null ? null : new Date(Date.now() - rangeMs),
      HISTORY_POINTS,
    );
    const shown = shownPrices(event, options);
    const views = [];
    for (const option of options) {
      const levels = (await this.trading.book(option.id))?.levels ?? [];
      views.push({
        ...toOptionView(option, shown.get(option.id) ?? { yesPriceCents: 50, probabilityBps: 5000 }),
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

  /** The YES price shown for an option now (see `shownPrices`); 50 for an unknown option. */
  /** Read through `db`, the caller's transaction when it holds one (the embedded database has one session). */
  async shownYesPrice(optionId: number, db: Queryable = this.db): Promise<number> {
    const option = await this.markets.findOption(db, optionId);
    const event = option && (await this.markets.findEventById(db, option.event_id));
    if (!option || !event) return 50;
    const options = await this.markets.optionsOf(db, [event.id]);
    return shownPrices(event, options).get(optionId)?.yesPriceCents ?? 50;
  }

  async lookup(slug: string) {
    const event = await this.markets.findEventBySlug(this.publicReads, slug);
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
      exclusive: option.exclusive,
      lastYesPriceCents: option.last_yes_price,
      bookVersion: option.book_version,
      ...bothSides(levels),
    };
  }

  async leaderboard(limit: number) {
    const [profit, volume, predictions] = await Promise.all([
      this.figures.leaderboard(this.publicReads, 'profit', limit),
      this.figures.leaderboard(this.publicReads, 'volume', limit),
      this.figures.leaderboard(this.publicReads, 'predictions', limit),
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
}

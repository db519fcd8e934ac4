import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { DB } from '../../platform/db/schema.js';
import { ConflictError, NotFoundError, ServiceUnavailableError } from '../../platform/errors.js';
import type { TradingStatusRepository } from './status-repository.js';
import type { TradingStatusText } from './tables.js';

/** How long a loaded status is trusted before the next check reads it again (other instances follow within it). */
export const STATUS_REFRESH_MS = 1_000;
/** How long a client refused for maintenance is asked to wait before trying again. */
const MAINTENANCE_RETRY_AFTER_SECONDS = 30;
const STRICTNESS: Record<TradingStatusText, number> = { trading: 0, post_only: 1, maintenance: 2 };

export class MaintenanceError extends ServiceUnavailableError {
  constructor(message: string | null) {
    super(
      'MAINTENANCE',
      `Trading is paused for maintenance${message ? `: ${message}` : ''}. No new orders, amends or conversions ` +
        'are taken; cancels still work',
      MAINTENANCE_RETRY_AFTER_SECONDS,
    );
  }
}

export class PostOnlyModeError extends ConflictError {
  constructor(message: string | null) {
    super(
      'POST_ONLY_MODE',
      `Only post-only limit orders are taken now${message ? ` (${message})` : ''}: send \`postOnly: true\`; ` +
        'market trades and orders that could take liquidity are refused',
    );
  }
}

/** What a request asks of a market: a new order, an amend (whether it could take liquidity), a conversion. */
export type MarketAction =
  | { kind: 'order'; postOnly: boolean }
  | { kind: 'amend'; mayTake: boolean }
  | { kind: 'convert' };

interface Snapshot {
  exchange: { status: TradingStatusText; message: string | null; updatedAt: Date };
  events: Map<number, { slug: string; status: TradingStatusText; message: string | null; updatedAt: Date }>;
  loadedAt: number;
}

/**
 * The trading status operators set: the exchange's, and stricter ones for single markets (events). A market trades
 * under the stricter of the two. Read from the database and trusted for STATUS_REFRESH_MS, so a change made on any
 * instance holds everywhere within about a second; the instance that made it follows at once.
 */
export class TradingStatus {
  private snapshot: Snapshot | null = null;
  private loading: { generation: number; snapshot: Promise<Snapshot> } | null = null;
  /** Moves on with every change made here, so that a load begun before it is not kept. */
  private generation = 0;
  /** Options and slugs never move to another event: their events are remembered. */
  private readonly eventOfOption = new LRUCache<number, number>({ max: 100_000 });
  private readonly eventOfSlug = new LRUCache<string, number>({ max: 100_000 });

  constructor(
    private readonly db: Kysely<DB>,
    private readonly statuses: TradingStatusRepository,
    private readonly fees: { takerFeeBps: number },
  ) {}

  /** The public status: the exchange's, and every market held stricter than it. */
  async view() {
    const { exchange, events } = await this.current();
    return {
      status: exchange.status,
      message: exchange.message,
      updatedAt: exchange.updatedAt.toISOString(),
      serverTime: new Date().toISOString(),
      takerFeeBps: this.fees.takerFeeBps,
      makerFeeBps: 0,
      markets: [...events]
        .filter(([, event]) => STRICTNESS[event.status] > STRICTNESS[exchange.status])
        .map(([eventId, event]) => ({
          eventId: String(eventId),
          eventSlug: event.slug,
          status: event.status,
          message: event.message,
          updatedAt: event.updatedAt.toISOString(),
        })),
    };
  }

  async setExchange(status: TradingStatusText, message: string | null, userId: number | null) {
    await this.statuses.setExchange(this.db, status, message, userId);
    this.changed();
    return this.view();
  }

  /** Holds one market stricter than the exchange (`trading`: as the exchange again). */
  async setEvent(eventId: number, status: TradingStatusText, message: string | null, userId: number | null) {
    if (!(await this.statuses.eventExists(this.db, eventId))) throw new NotFoundError('Event');
    if (status === 'trading') await this.statuses.clearEvent(this.db, eventId);
    else await this.statuses.setEvent(this.db, eventId, status, message, userId);
    this.changed();
    return this.view();
  }

  /** Whether every market trades freely now (then no request needs a closer look). */
  async allTrading(): Promise<boolean> {
    const { exchange, events } = await this.current();
    return exchange.status === 'trading' && events.size === 0;
  }

  /** Refuses the action when the market's status does not allow it: 503 MAINTENANCE or 409 POST_ONLY_MODE. */
  async check(eventId: number, action: MarketAction): Promise<void> {
    const { exchange, events } = await this.current();
    const event = events.get(eventId);
    const strictest = event && STRICTNESS[event.status] > STRICTNESS[exchange.status] ? event : exchange;
    if (strictest.status === 'maintenance') throw new MaintenanceError(strictest.message);
    if (strictest.status !== 'post_only') return;
    const takes = action.kind === 'order' ? !action.postOnly : action.kind === 'amend' && action.mayTake;
    if (takes) throw new PostOnlyModeError(strictest.message);
  }

  /** The event of an option, or undefined for an unknown option (its route answers 404). */
  async eventOf(ref: { optionId?: string | undefined; eventSlug?: string | undefined }) {
    if (ref.optionId !== undefined) {
      const optionId = Number(ref.optionId);
      const known = this.eventOfOption.get(optionId);
      if (known !== undefined) return known;
      const found = await this.statuses.eventOfOption(this.db, optionId);
      if (found !== undefined) this.eventOfOption.set(optionId, found);
      return found;
    }
    if (ref.eventSlug === undefined) return undefined;
    const known = this.eventOfSlug.get(ref.eventSlug);
    if (known !== undefined) return known;
    const found = await this.statuses.eventOfSlug(this.db, ref.eventSlug);
    if (found !== undefined) this.eventOfSlug.set(ref.eventSlug, found);
    return found;
  }

  /** A trader's order as an amend of it is judged; undefined when it is not theirs (the route answers 404). */
  orderOf(userId: number, orderId: number) {
    return this.statuses.userOrder(this.db, userId, orderId);
  }

  private changed(): void {
    this.generation += 1;
    this.snapshot = null;
  }

  private async current(): Promise<Snapshot> {
    if (this.snapshot && Date.now() - this.snapshot.loadedAt < STATUS_REFRESH_MS) return this.snapshot;
    if (this.loading?.generation !== this.generation) {
      const generation = this.generation;
      const snapshot = this.load(generation).finally(() => {
        if (this.loading?.generation === generation) this.loading = null;
      });
      this.loading = { generation, snapshot };
    }
    return this.loading.snapshot;
  }

  private async load(generation: number): Promise<Snapshot> {
    const [exchange, events] = await Promise.all([
      this.statuses.exchange(this.db),
      this.statuses.events(this.db),
    ]);
    const snapshot: Snapshot = {
      exchange: { status: exchange.status, message: exchange.message, updatedAt: exchange.updated_at },
      events: new Map(
        events.map((row) => [
          row.event_id,
          { slug: row.slug, status: row.status, message: row.message, updatedAt: row.updated_at },
        ]),
      ),
      loadedAt: Date.now(),
    };
    if (generation === this.generation) this.snapshot = snapshot;
    return snapshot;
  }
}

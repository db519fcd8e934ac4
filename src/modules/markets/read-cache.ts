import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../platform/db/database.js';
import { type Loaded, ReadCache } from '../../platform/read-cache.js';
import type { TradingService } from '../trading/service.js';
import type { MarketCatalogue, PriceRange } from './catalogue.js';
import type { CatalogueChanges } from './changes.js';
import { CATALOGUE_CHANNEL } from './repository.js';

/** Every committed change to an option's book is announced on this channel with its `optionId` and `seq`. */
const BOOK_CHANNEL = 'pmx_book';

/** How long a market list, an event's detail or a slug lookup is served from memory at most. */
export const MARKET_READ_TTL_MS = 2_000;
/** How long an order book is served from memory at most; every change to it drops it before that. */
export const ORDER_BOOK_TTL_MS = 10_000;
/** A book change made here whose NOTIFY has not come back after this long is taken to have rolled back. */
const UNCONFIRMED_MS = 5_000;
/** Bound of the number of cached answers (their total length is bounded by READ_CACHE_MAX_MB). */
const MAX_ENTRIES = 20_000;

type EventListQuery = Parameters<MarketCatalogue['listEvents']>[0];
type EventList = Awaited<ReturnType<MarketCatalogue['listEvents']>>;
type EventDetail = Awaited<ReturnType<MarketCatalogue['getEvent']>>;
type EventLookup = Awaited<ReturnType<MarketCatalogue['lookup']>>;
type OrderBook = Awaited<ReturnType<MarketCatalogue['orderBook']>>;

/** Turns an answer into the JSON text its route sends (the route's response serializer). */
export type Serialize<T> = (value: T) => string;

const optionTag = (optionId: number | string): string => `option:${optionId}`;

/**
 * The hot public reads of the markets (the list, an event's detail, the slug lookup, an order book) kept in this
 * process's memory as the JSON text sent, so that a hit costs neither a query nor a serialization. Nothing here is
 * user-specific. Each answer is tagged with the options whose prices, volume or book it shows:
 *
 * - a change to an option's book (order, fill, cancel, expiry), announced by the trading transaction with NOTIFY on
 *   `pmx_book`, drops on every instance the answers showing that option;
 * - a change to the catalogue (create, edit, open, close, resolve, settle, an upheld dispute), announced by the
 *   markets service with NOTIFY on `pmx_markets`, drops everything on every instance;
 * - while a listening connection is lost, notifications may be missed, so nothing is cached until it is back;
 * - a short time to live bounds what a missed notification could leave behind anyway.
 */
export class MarketReadCache {
  private readonly cache: ReadCache<string>;
  /** Options whose book changed in a transaction of this process, until the NOTIFY of that change arrives. */
  private readonly unconfirmed = new Map<number, { version: number; at: number }>();
  /** Channels whose listening connection is lost. */
  private readonly gaps = new Set<string>();
  /** True while every notification can be trusted to arrive: only then are answers cached. */
  private listening = false;
  private stopListening: (() => Promise<void>)[] = [];

  constructor(
    private readonly markets: MarketCatalogue,
    private readonly changes: CatalogueChanges,
    private readonly database: Database,
    private readonly log: FastifyBaseLogger,
    maxMb: number,
  ) {
    // V8 keeps text of Latin-1 characters at one byte each (two each for other text): length ≈ bytes.
    this.cache = new ReadCache<string>({
      maxSize: maxMb * 1024 * 1024,
      sizeOf: (json) => json.length,
      maxEntries: MAX_ENTRIES,
    });
  }

  listEvents(query: EventListQuery, serialize: Serialize<EventList>): Promise<string> {
    const key = `events:${JSON.stringify([query.ids, query.category, query.featured, query.q, query.status, query.cursor, query.limit])}`;
    return this.read(key, MARKET_READ_TTL_MS, async () => {
      const page = await this.markets.listEvents(query);
      return {
        value: serialize(page),
        tags: page.data.flatMap((event) => event.options.map((option) => optionTag(option.id))),
      };
    });
  }

  event(slug: string, range: PriceRange, serialize: Serialize<EventDetail>): Promise<string> {
    return this.read(`event:${range}:${slug}`, MARKET_READ_TTL_MS, async () => {
      const event = await this.markets.getEvent(slug, range);
      return { value: serialize(event), tags: event.options.map((option) => optionTag(option.id)) };
    });
  }

  /** Id, slug, title and status change only with the catalogue. */
  lookup(slug: string, serialize: Serialize<EventLookup>): Promise<string> {
    return this.read(
      `lookup:${slug}`,
      MARKET_READ_TTL_MS,
      async () => ({ value: serialize(await this.markets.lookup(slug)), tags: [] }),
      [],
    );
  }

  orderBook(optionId: number, serialize: Serialize<OrderBook>): Promise<string> {
    const tags = [optionTag(optionId)];
    return this.read(
      `book:${optionId}`,
      ORDER_BOOK_TTL_MS,
      async () => ({ value: serialize(await this.markets.orderBook(optionId)), tags }),
      tags,
    );
  }

  /**
   * Any other public read of market data (candles, tickers, the tape): `optionIds` names the options it shows
   * when known before loading; the load names them otherwise. Dropped with any of them, and with the catalogue.
   */
  optionData(
    key: string,
    ttlMs: number,
    optionIds: readonly number[] | null,
    load: () => Promise<{ value: string; optionIds: readonly number[] }>,
  ): Promise<string> {
    return this.read(
      `data:${key}`,
      Math.max(1, Math.min(ttlMs, ORDER_BOOK_TTL_MS)),
      async () => {
        const loaded = await load();
        return { value: loaded.value, tags: loaded.optionIds.map(optionTag) };
      },
      optionIds?.map(optionTag),
    );
  }

  /**
   * Drops everything cached that shows this option: its order book, and the events and lists with its prices and
   * volume. For a writer to call right after a change to the option's book has committed, so that its client's
   * next read on this instance sees the change without waiting for the NOTIFY.
   */
  invalidateOption(optionId: number): void {
    this.unconfirmed.delete(optionId);
    this.cache.invalidate(optionTag(optionId));
  }

  /** Drops everything cached. */
  invalidateAll(): void {
    this.cache.clear();
  }

  /** Follows the book changes of this process's trading transactions, and the catalogue changes it commits. */
  attach(trading: TradingService): void {
    trading.onBookChanged(async (_trx, changes) => {
      for (const change of changes) {
        const previous = this.unconfirmed.get(change.optionId)?.version ?? 0;
        this.unconfirmed.set(change.optionId, {
          version: Math.max(previous, change.bookVersion),
          at: Date.now(),
        });
      }
    });
    this.changes.on(() => this.invalidateAll());
  }

  /**
   * Read-your-writes on this instance. The answer to a write leaves only after its transactions committed (orders
   * may commit in a batch begun by another request), while the NOTIFY of a change may come back a moment later.
   * So before any write's answer is sent, the options this process changed whose NOTIFY has not come back yet are
   * dropped again: a client that reads right after its order was acknowledged sees it.
   */
  afterResponse(method: string): void {
    if (this.unconfirmed.size === 0 || method === 'GET' || method === 'HEAD') return;
    const now = Date.now();
    for (const [optionId, { at }] of this.unconfirmed) {
      this.cache.invalidate(optionTag(optionId));
      if (now - at > UNCONFIRMED_MS) this.unconfirmed.delete(optionId);
    }
  }

  async start(): Promise<void> {
    this.stopListening.push(
      await this.listen(BOOK_CHANNEL, (payload) => this.onBookNotice(payload)),
      await this.listen(CATALOGUE_CHANNEL, () => this.invalidateAll()),
    );
    this.listening = this.gaps.size === 0;
  }

  async stop(): Promise<void> {
    this.listening = false;
    await Promise.all(this.stopListening.map((stop) => stop()));
    this.stopListening = [];
    this.cache.clear();
  }

  private read(
    key: string,
    ttlMs: number,
    load: () => Promise<Loaded<string>>,
    expectedTags?: readonly string[],
  ): Promise<string> {
    return this.listening ? this.cache.get(key, ttlMs, load, expectedTags) : this.cache.bypass(load);
  }

  private listen(channel: string, handle: (payload: string) => void): Promise<() => Promise<void>> {
    return this.database.listen(
      channel,
      (payload) => {
        try {
          handle(payload);
        } catch (err) {
          this.log.error({ err, channel }, 'could not read a market notice; dropping the read cache');
          this.cache.clear();
        }
      },
      (listening) => {
        if (listening) this.gaps.delete(channel);
        else this.gaps.add(channel);
        this.cache.clear();
        this.listening = this.stopListening.length > 0 && this.gaps.size === 0;
      },
    );
  }

  private onBookNotice(payload: string): void {
    const notice = JSON.parse(payload) as { optionId?: unknown; seq?: unknown };
    const optionId = Number(notice.optionId);
    if (!Number.isSafeInteger(optionId)) throw new Error('a book notice without an optionId');
    this.cache.invalidate(optionTag(optionId));
    const pending = this.unconfirmed.get(optionId);
    if (pending && typeof notice.seq === 'number' && notice.seq >= pending.version) {
      this.unconfirmed.delete(optionId);
    }
  }
}

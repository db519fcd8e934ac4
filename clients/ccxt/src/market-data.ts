import {
  BadRequest,
  BadSymbol,
  type Dict,
  type Dictionary,
  type fetchEventsParams,
  type Int,
  type Market,
  type OHLCV,
  type PredictionEvent,
  type PredictionOpenInterest,
  type PredictionOrderBook,
  type PredictionTicker,
  type PredictionTickers,
  type PredictionTrade,
  type Str,
  type Strings,
} from 'ccxt';
import type { OutcomeLabel } from './base.js';
import { PmxParse } from './parse.js';

const LABELS: OutcomeLabel[] = ['YES', 'NO'];
/** The most ids one request of `/api/tickers` or `/api/options` takes. */
const IDS_PER_REQUEST = 100;
/** The longest page a list answers. */
const PAGE = 200;

const chunks = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** The public reads: events, markets and outcomes, tickers, books, candles and the tape. */
export class PmxMarketData extends PmxParse {
  /** A list's items, page after page (`perPage` a page), up to `max`. */
  async pages(
    path: string,
    api: 'public' | 'private',
    params: Dict = {},
    max = Number.POSITIVE_INFINITY,
    perPage = PAGE,
  ) {
    const items: Dict[] = [];
    let cursor: Str;
    do {
      const limit = Math.min(perPage, max - items.length);
      const page = await this.request(path, api, 'GET', this.extend(params, { limit, cursor }));
      items.push(...this.safeList(page, 'data', []));
      cursor = this.safeString(page, 'nextCursor');
    } while (cursor !== undefined && items.length < max);
    return items;
  }

  // -- events, markets, outcomes ----------------------------------------------------------------------------------

  /** Events, newest first: `query` (or `queries`) searches titles and descriptions; `status` active / closed / all. */
  override async fetchEvents(params: fetchEventsParams = {}): Promise<PredictionEvent[]> {
    const queries = this.parseSearchQueries(params);
    const status = this.safeString(params, 'status', 'active');
    const request: Dict = {
      q: queries.length > 0 ? queries.join(' OR ') : undefined,
      category: this.safeString(params, 'category'),
      status:
        status === 'active' ? 'open' : status === 'closed' || status === 'inactive' ? 'closed' : undefined,
    };
    const max = this.safeInteger(params, 'limit', this.safeInteger(this.options, 'maxEvents', 1_000));
    const events = (await this.pages('events', 'public', request, max)).map((event) =>
      this.parseEvent(event),
    );
    for (const event of events) this.indexEventOutcomes(event);
    return this.applyEventFetchParams(events, this.omit(params, ['query', 'queries', 'limit']), []);
  }

  /** One event, by id or slug. */
  override async fetchEvent(id: string, params = {}): Promise<PredictionEvent> {
    const found = /^[1-9][0-9]*$/.test(id)
      ? this.safeDict(
          this.safeList(await this.request('events', 'public', 'GET', { ids: id }), 'data', []),
          0,
        )
      : await this.request('events/{slug}', 'public', 'GET', this.extend({ slug: id }, params));
    if (!found) throw new BadSymbol(`${this.id} has no event ${id}`);
    const event = this.parseEvent(found);
    this.indexEventOutcomes(event);
    return event;
  }

  /** Every open market (each option of each open event), for `loadMarkets`. */
  override async fetchMarkets(params = {}): Promise<Market[]> {
    const events = await this.pages('events', 'public', this.extend({ status: 'open' }, params));
    return events.flatMap((event) =>
      this.safeList(event, 'options', []).map((option: Dict) => this.parseMarketOf(option, event)),
    ) as Market[];
  }

  /** Outcomes by id (`12-YES`), a hundred to a request; handles not cached are searched for by their words. */
  override async fetchOutcomes(outcomeSymbols: string[]) {
    const optionIds = [
      ...new Set(outcomeSymbols.map((s) => this.splitOutcomeId(s)?.optionId).filter(Boolean)),
    ];
    if (this.markets === undefined) this.markets = this.createSafeDictionary() as Dictionary<Market>;
    const markets = this.markets;
    for (const ids of chunks(optionIds as string[], IDS_PER_REQUEST)) {
      const found = await this.request('options', 'public', 'GET', { ids: ids.join(',') });
      for (const option of this.safeList(found, 'data', [])) {
        const event = {
          id: option.eventId,
          slug: option.eventSlug,
          title: option.eventTitle,
          status: option.eventStatus,
          closesAt: option.closesAt,
        };
        const market = this.parseMarketOf(option, event);
        markets[market.market] = market as Market;
        this.indexMarketOutcomes(market);
      }
    }
    // Handles are not ids: each is searched for by its words (an unknown id stays unknown: fetchOutcome says so).
    for (const symbol of outcomeSymbols) {
      if (!this.hasOutcome(symbol) && !this.splitOutcomeId(symbol)) await this.fetchOutcome(symbol);
    }
    return this.outcomes;
  }

  override async fetchOutcome(outcomeSymbol: string) {
    if (this.splitOutcomeId(outcomeSymbol)) {
      if (!this.hasOutcome(outcomeSymbol)) await this.fetchOutcomes([outcomeSymbol]);
      if (this.hasOutcome(outcomeSymbol)) return this.safeOutcome(outcomeSymbol);
      throw new BadSymbol(`${this.id} does not have outcome ${outcomeSymbol}`);
    }
    return super.fetchOutcome(outcomeSymbol);
  }

  // -- market data ------------------------------------------------------------------------------------------------

  override async fetchTicker(outcome: string, params = {}): Promise<PredictionTicker> {
    const { optionId, label } = await this.resolveOutcome(outcome);
    const found = await this.request(
      'tickers',
      'public',
      'GET',
      this.extend({ optionIds: optionId }, params),
    );
    const ticker = this.safeDict(this.safeList(found, 'data', []), 0);
    if (!ticker) throw new BadSymbol(`${this.id} has no ticker for ${outcome}`);
    return this.tickerOf(ticker, label);
  }

  /** Every open market's tickers in one request when no outcomes are named; else a hundred options a request. */
  override async fetchTickers(outcomes: Strings = undefined, params = {}): Promise<PredictionTickers> {
    const result: PredictionTickers = {};
    if (outcomes === undefined) {
      for (const ticker of this.safeList(
        await this.request('tickers', 'public', 'GET', params),
        'data',
        [],
      )) {
        for (const label of LABELS) {
          const parsed = this.tickerOf(ticker, label);
          result[parsed.outcome] = parsed;
        }
      }
      return result;
    }
    const wanted = await Promise.all(outcomes.map((outcome) => this.resolveOutcome(outcome)));
    const optionIds = [...new Set(wanted.map((w) => w.optionId))];
    for (const ids of chunks(optionIds, IDS_PER_REQUEST)) {
      const found = await this.request(
        'tickers',
        'public',
        'GET',
        this.extend({ optionIds: ids.join(',') }, params),
      );
      for (const ticker of this.safeList(found, 'data', [])) {
        for (const w of wanted.filter((w) => w.optionId === this.safeString(ticker, 'optionId')))
          result[w.handle] = { ...this.tickerOf(ticker, w.label), outcome: w.handle };
      }
    }
    return result;
  }

  /** The book from the outcome's own point of view (the API answers both the YES and the NO ladder). */
  override async fetchOrderBook(
    outcome: Str,
    limit: Int = undefined,
    params = {},
  ): Promise<PredictionOrderBook> {
    const { optionId, label, handle } = await this.resolveOutcome(outcome as string);
    const book = await this.request(
      'orderbook/{optionId}',
      'public',
      'GET',
      this.extend({ optionId }, params),
    );
    const ladder = this.safeDict(book, label === 'YES' ? 'yes' : 'no', {});
    const levels = (side: string): [number, number][] =>
      this.safeList(ladder, side, [])
        .slice(0, limit)
        .map((level: Dict) => [
          this.safeInteger(level, 'priceCents', 0) / 100,
          this.safeInteger(level, 'quantity', 0),
        ]);
    return {
      bids: levels('bids'),
      asks: levels('asks'),
      timestamp: this.milliseconds(),
      datetime: this.iso8601(this.milliseconds()),
      nonce: this.safeInteger(book, 'bookVersion'),
      outcome: handle,
      outcomeId: this.outcomeIdOf(optionId, label),
    };
  }

  /** Candles at 1m, 5m, 15m, 1h, 6h or 1d, at most 1,440 a request; a NO outcome's are the YES ones turned over. */
  override async fetchOHLCV(
    outcome: string,
    timeframe = '1m',
    since: Int = undefined,
    limit: Int = undefined,
    params = {},
  ): Promise<OHLCV[]> {
    const interval = this.safeString(this.timeframes, timeframe);
    if (interval === undefined)
      throw new BadRequest(`${this.id} fetchOHLCV() takes ${Object.keys(this.timeframes).join(', ')}`);
    const { optionId, label } = await this.resolveOutcome(outcome);
    const width = this.parseTimeframe(timeframe) * 1000;
    const count = Math.min(limit ?? this.safeInteger(this.options, 'defaultOHLCVLimit', 500), 1_440);
    const from = since ?? this.milliseconds() - (count - 1) * width;
    const request = {
      optionId,
      interval,
      from: this.iso8601(from),
      to: since === undefined ? undefined : this.iso8601(since + count * width),
    };
    const candles = await this.request(
      'options/{optionId}/candles',
      'public',
      'GET',
      this.extend(request, params),
    );
    const data = this.safeList(candles, 'data', []).map((candle: Dict) => this.candleOf(candle, label));
    return this.filterBySinceLimit(data, since, limit, 0, since === undefined);
  }

  /** The public tape, newest executions of the option, from the outcome's point of view. */
  override async fetchTrades(outcome: string, since: Int = undefined, limit: Int = undefined, params = {}) {
    const { optionId, label } = await this.resolveOutcome(outcome);
    const request = { optionId, limit: Math.min(limit ?? 100, PAGE) };
    const page = await this.request(
      'options/{optionId}/trades',
      'public',
      'GET',
      this.extend(request, params),
    );
    const trades = this.safeList(page, 'data', []).map((trade: Dict) =>
      this.tapeTradeOf(trade, optionId, label),
    );
    return this.filterBySinceLimit(this.sortBy(trades, 'timestamp'), since, limit) as PredictionTrade[];
  }

  override async fetchOpenInterest(outcome: string, params = {}): Promise<PredictionOpenInterest> {
    const ticker = await this.fetchTicker(outcome, params);
    return {
      openInterestAmount: ticker.openInterest,
      timestamp: ticker.timestamp,
      datetime: ticker.datetime,
      outcome: ticker.outcome,
      outcomeId: ticker.outcomeId,
      info: ticker.info,
    };
  }
}

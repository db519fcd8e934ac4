import {
  AccountSuspended,
  AuthenticationError,
  BadRequest,
  BadSymbol,
  type Dict,
  DuplicateOrderId,
  ExchangeError,
  ExchangeNotAvailable,
  InsufficientFunds,
  InvalidOrder,
  MarketClosed,
  OnMaintenance,
  OperationRejected,
  OrderImmediatelyFillable,
  OrderNotFillable,
  OrderNotFound,
  PermissionDenied,
  PredictionExchange,
  RateLimitExceeded,
  type Str,
} from 'ccxt';

/**
 * The exchange as CCXT's prediction namespace sees it, and the translation both ways. Our nouns map onto CCXT's:
 * an event is an event, each of its options is a binary market, and a market's outcomes are its YES and NO sides.
 * Outcome ids are `<optionId>-YES` and `<optionId>-NO`; prices are our cents as dollars (0.01..0.99), amounts whole
 * shares, money in `USD` (one cent of the exchange's money is 0.01).
 */

/** The REST paths, as CCXT's implicit API methods (`publicGetTickers`, `privatePostLimitOrdersBatch` …). */
const API = {
  public: {
    get: {
      events: 1,
      'events/{slug}': 1,
      options: 1,
      tickers: 1,
      'orderbook/{optionId}': 1,
      'options/{optionId}/candles': 1,
      'options/{optionId}/trades': 1,
      'options/{optionId}/quote': 1,
      status: 1,
      time: 1,
    },
  },
  private: {
    get: {
      'auth/me': 1,
      positions: 1,
      'limit-orders': 1,
      'orders/{id}': 1,
      'me/fills': 1,
      'me/settlements': 1,
    },
    post: {
      trades: 1,
      'limit-orders': 1,
      'limit-orders/batch': 1,
      'limit-orders/cancel': 1,
      'limit-orders/cancel-all': 1,
      'limit-orders/{id}/amend': 1,
      heartbeat: 1,
    },
    delete: { 'limit-orders/{id}': 1 },
  },
};

/** Each error code of the API as the CCXT exception a caller catches. */
export const EXCEPTIONS: Record<string, typeof ExchangeError> = {
  INSUFFICIENT_FUNDS: InsufficientFunds,
  INSUFFICIENT_SHARES: InsufficientFunds,
  FOK_NOT_FILLED: OrderNotFillable,
  NO_LIQUIDITY: OrderNotFillable,
  POST_ONLY_WOULD_TAKE: OrderImmediatelyFillable,
  POST_ONLY_MODE: OperationRejected,
  MARKET_CLOSED: MarketClosed,
  MAINTENANCE: OnMaintenance,
  ORDER_NOT_OPEN: OrderNotFound,
  IDEMPOTENCY_MISMATCH: DuplicateOrderId,
  VALIDATION_FAILED: BadRequest,
  BAD_REQUEST: BadRequest,
  MALFORMED_BODY: BadRequest,
  EVENT_NOT_EXCLUSIVE: InvalidOrder,
  UNAUTHENTICATED: AuthenticationError,
  INVALID_CREDENTIALS: AuthenticationError,
  FORBIDDEN: PermissionDenied,
  ACCOUNT_SUSPENDED: AccountSuspended,
  RATE_LIMITED: RateLimitExceeded,
  ORDER_RATE_LIMITED: RateLimitExceeded,
  OPTION_BUSY: ExchangeNotAvailable,
  ORDER_QUEUE_FULL: ExchangeNotAvailable,
  SHUTTING_DOWN: ExchangeNotAvailable,
  DATABASE_UNAVAILABLE: ExchangeNotAvailable,
  DATABASE_READ_ONLY: ExchangeNotAvailable,
  DATABASE_DISK_FULL: ExchangeNotAvailable,
  DATABASE_OVERLOADED: ExchangeNotAvailable,
};

/** The side of an option an outcome is. */
export type OutcomeLabel = 'YES' | 'NO';

export class PmxBase extends PredictionExchange {
  override describe() {
    return this.deepExtend(super.describe(), {
      id: 'pmx',
      name: 'PMX prediction exchange',
      countries: [],
      version: '1',
      // 60 requests a minute per key (RATE_LIMIT_MAX): one every second.
      rateLimit: 1000,
      certified: false,
      pro: true,
      has: {
        CORS: true,
        spot: false,
        margin: false,
        swap: false,
        future: false,
        option: false,
        prediction: true,
        fetchEvents: true,
        fetchEvent: true,
        fetchMarkets: true,
        fetchOutcome: true,
        fetchTicker: true,
        fetchTickers: true,
        fetchOrderBook: true,
        fetchOHLCV: true,
        fetchTrades: true,
        fetchOpenInterest: true,
        createOrder: true,
        createOrders: true,
        editOrder: true,
        cancelOrder: true,
        cancelOrders: true,
        cancelAllOrders: true,
        fetchOrder: true,
        fetchOrders: true,
        fetchOpenOrders: true,
        fetchClosedOrders: true,
        fetchOrderTrades: true,
        fetchMyTrades: true,
        fetchPosition: true,
        fetchPositions: true,
        fetchBalance: true,
        fetchSettlements: true,
        fetchTradingFee: true,
        fetchStatus: true,
        fetchTime: true,
        watchOrderBook: true,
        watchTrades: true,
        watchOrders: true,
      },
      timeframes: { '1m': '1m', '5m': '5m', '15m': '15m', '1h': '1h', '6h': '6h', '1d': '1d' },
      urls: {
        // A self-hosted exchange: set urls.api.rest to where it serves (the stream is found beside it).
        api: { rest: 'http://localhost:3000' },
        www: 'http://localhost:3000',
        doc: ['http://localhost:3000/docs'],
      },
      api: API,
      requiredCredentials: { apiKey: true, secret: false },
      fees: { trading: { tierBased: false, percentage: true, maker: 0, taker: 0 } },
      exceptions: { exact: EXCEPTIONS, broad: { 'Order not found': OrderNotFound, 'not found': BadSymbol } },
      options: {
        // The most events one unscoped fetchEvents / fetchMarkets walks (200 a page).
        maxEvents: 1_000,
        // Positions one request of fetchPositions asks for (1..500): it pages through all of them.
        positionsPerPage: 200,
        // Candles one fetchOHLCV asks for when no limit is given (the API answers at most 1,440).
        defaultOHLCVLimit: 500,
      },
    });
  }

  /** Where the REST API and the stream are. */
  restUrl(): string {
    return String(this.urls.api.rest).replace(/\/+$/, '');
  }

  streamUrl(privateChannel = false): string {
    const base = `${this.restUrl().replace(/^http/, 'ws')}/api/stream`;
    return privateChannel ? `${base}?token=${encodeURIComponent(this.apiKey)}` : base;
  }

  override sign(
    path: string,
    api: string = 'public',
    method = 'GET',
    params: Dict = {},
    headers: Dict | undefined = undefined,
    body: Str = undefined,
  ) {
    let url = `${this.restUrl()}/api/${this.implodeParams(path, params)}`;
    const named = this.omit(params, this.extractParams(path));
    const query = Object.fromEntries(Object.entries(named).filter(([, value]) => value !== undefined));
    const sent: Dict = { Accept: 'application/json', ...(headers ?? {}) };
    if (api === 'private') {
      this.checkRequiredCredentials();
      sent.Authorization = `Bearer ${this.apiKey}`;
    }
    if (method === 'GET' || method === 'DELETE') {
      const text = this.urlencode(query);
      if (text !== '') url += `?${text}`;
    } else {
      sent['Content-Type'] = 'application/json';
      body = this.json(query);
    }
    return { url, method, body, headers: sent };
  }

  /** An error answer `{error, code, details}` raised as the CCXT exception of its code. */
  override handleErrors(
    statusCode: number,
    _statusText: string,
    _url: string,
    _method: string,
    _responseHeaders: Dict,
    responseBody: string,
    response: Dict | undefined,
  ): undefined {
    if (statusCode < 400 || response === undefined || response === null) return undefined;
    const code = this.safeString(response, 'code');
    const message = this.safeString(response, 'error', '');
    const feedback = `${this.id} ${responseBody}`;
    this.throwExactlyMatchedException(this.exceptions.exact, code, feedback);
    this.throwBroadlyMatchedException(this.exceptions.broad, message, feedback);
    throw new ExchangeError(feedback);
  }

  // -- identity ---------------------------------------------------------------------------------------------------

  outcomeIdOf(optionId: string, label: OutcomeLabel): string {
    return `${optionId}-${label}`;
  }

  /** The option and side of an outcome id (`12-YES`), or undefined for anything else. */
  splitOutcomeId(outcomeId: Str): { optionId: string; label: OutcomeLabel } | undefined {
    const match = /^([1-9][0-9]{0,15})-(YES|NO)$/.exec(outcomeId ?? '');
    return match ? { optionId: match[1] as string, label: match[2] as OutcomeLabel } : undefined;
  }

  /** The handle of an outcome: the cached one (CCXT disambiguates collisions), else made from the slugs. */
  outcomeHandle(optionId: string, label: OutcomeLabel, eventSlug?: Str, optionLabel?: Str): string {
    const known = this.safeOutcome(this.outcomeIdOf(optionId, label));
    const handle = this.safeString(known, 'outcome');
    if (handle !== undefined && handle !== this.outcomeIdOf(optionId, label)) return handle;
    if (eventSlug === undefined || optionLabel === undefined) return this.outcomeIdOf(optionId, label);
    return this.slugToOutcomeSymbol(eventSlug, optionLabel, label);
  }

  /** The option and side an outcome handle or id names (loading it when it is not cached yet). */
  async resolveOutcome(outcome: string): Promise<{ optionId: string; label: OutcomeLabel; handle: string }> {
    const found = await this.loadOutcome(outcome);
    const split = this.splitOutcomeId(this.safeString(found, 'outcomeId'));
    if (!split) throw new BadSymbol(`${this.id} does not have outcome ${outcome}`);
    return { ...split, handle: this.safeString(found, 'outcome', outcome) as string };
  }

  // -- prices -----------------------------------------------------------------------------------------------------

  /** A YES price in cents as the price of one side in dollars. */
  sidePrice(yesCents: number | null | undefined, label: OutcomeLabel): number | undefined {
    if (yesCents === null || yesCents === undefined) return undefined;
    return (label === 'YES' ? yesCents : 100 - yesCents) / 100;
  }

  /** A price in dollars as whole cents 1..99. */
  toCents(price: number): number {
    const cents = Math.round(price * 100);
    if (cents < 1 || cents > 99) throw new InvalidOrder(`${this.id} prices are 0.01..0.99, got ${price}`);
    return cents;
  }

  /** Cents as dollars. */
  cents(value: number | null | undefined): number | undefined {
    return typeof value === 'number' ? value / 100 : undefined;
  }
}

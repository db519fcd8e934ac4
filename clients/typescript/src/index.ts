import createFetchClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

/**
 * The typed client of the exchange API: every path, parameter, body and answer comes from the OpenAPI document
 * (`schema.ts` is generated from it by `npm run client:generate`), so a call that does not fit the contract does
 * not compile.
 *
 *   const api = createClient({ baseUrl: 'http://localhost:3000', token: process.env.PMX_TOKEN });
 *   const { data, error } = await api.POST('/api/limit-orders', { body: { optionId, side: 'YES', ... } });
 */
export type { components, operations, paths };
export type Schemas = components['schemas'];

export type ApiError = Schemas['ApiError'];
export type MarketEvent = Schemas['MarketEvent'];
export type EventListItem = Schemas['EventListItem'];
export type EventSummary = Schemas['EventSummary'];
export type MarketOption = Schemas['MarketOption'];
export type OrderBook = Schemas['OrderBook'];
export type Order = Schemas['Order'];
export type PlacedOrder = Schemas['PlacedOrder'];
export type Trade = Schemas['Trade'];
export type Position = Schemas['Position'];
export type Portfolio = Schemas['Portfolio'];
export type Candles = Schemas['Candles'];
export type Candle = Schemas['Candle'];
export type Ticker = Schemas['Ticker'];
export type TapeTrade = Schemas['TapeTrade'];
export type Fill = Schemas['Fill'];
export type Settlement = Schemas['Settlement'];
export type PortfolioHistory = Schemas['PortfolioHistory'];
export type User = Schemas['User'];
export type Me = Schemas['Me'];
export type FeedNotification = Schemas['FeedNotification'];
export type WebhookSubscription = Schemas['WebhookSubscription'];

export type ExchangeClient = Client<paths>;

export interface ExchangeClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the service runs, e.g. http://localhost:3000 (empty: the page's own origin, in a browser). */
  baseUrl?: string;
  /** An API key or session token, sent as `Authorization: Bearer <token>`. */
  token?: string | null | undefined;
}

export function createClient({
  baseUrl = '',
  token,
  headers,
  ...options
}: ExchangeClientOptions = {}): ExchangeClient {
  return createFetchClient<paths>({
    baseUrl,
    ...options,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(headers as Record<string, string>),
    },
  });
}

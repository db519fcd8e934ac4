import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../platform/auth.js';
import { decodeCursor, errors, IdParams, IdString, Page, PageQuery } from '../../platform/http.js';
import { MARKET_READ_TTL_MS, type MarketReadCache, ORDER_BOOK_TTL_MS } from '../markets/read-cache.js';
import { sendJson, serializer } from '../markets/routes.js';
import { EventSlugFilter, OrderListItem } from '../trading/schemas.js';
import { MAX_CANDLES } from './candles.js';
import type { MarketQuotes } from './quotes.js';
import {
  CandleQuery,
  Candles,
  Fill,
  PortfolioHistory,
  Quote,
  QuoteQuery,
  Settlement,
  TapeTrade,
  TickerQuery,
  Tickers,
} from './schemas.js';
import type { MarketDataService } from './service.js';

const tags = ['Market data'];
const security = [{ bearerAuth: [] }];
const OptionParams = Type.Object({ optionId: IdString });
const SlugParams = Type.Object({ slug: Type.String({ maxLength: 200 }) });
const tapeDescription =
  'Newest first, cursor-paginated: each execution once, at its YES price, with the side and action of the order ' +
  'that took liquidity (the maker was on the other side). The stream’s `trades:<optionId>` channel carries the same ' +
  'executions live, with the same ids.';

export const marketDataRoutes: FastifyPluginAsyncTypebox<{
  data: MarketDataService;
  quotes: MarketQuotes;
  reads: MarketReadCache;
}> = async (app, { data, quotes, reads }) => {
  app.get(
    '/api/options/:optionId/candles',
    {
      schema: {
        tags,
        summary: 'OHLC candles of an option’s YES price',
        description:
          `Open, high, low and close of the YES price (cents) and the volume (shares, and cents at the takers’ ` +
          `prices) per 1-minute, 5-minute, 15-minute, 1-hour, 6-hour or 1-day interval (UTC), oldest first, at most ` +
          `${MAX_CANDLES} per request. ` +
          'Every interval of the range from the option’s first trade on has a candle: one without trades is flat ' +
          'at the previous close with no volume. The candles are written by the very transaction that makes the ' +
          'trades, so they always agree with the tape.',
        params: OptionParams,
        querystring: CandleQuery,
        response: { 200: Candles, ...errors(400, 404) },
      },
    },
    async (request, reply) => {
      const query = { ...request.query, optionId: Number(request.params.optionId) };
      const interval = query.interval ?? '1h';
      const span = data.candleSpan({ ...query, interval }, Date.now());
      const key = `candles:${query.optionId}:${interval}:${span.from}:${span.to}`;
      const json = await reads.optionData(key, span.ttlMs, [query.optionId], async () => ({
        value: serializer(reply)(await data.candles({ ...query, interval }, span)),
        optionIds: [query.optionId],
      }));
      return sendJson(reply, json);
    },
  );

  app.get(
    '/api/tickers',
    {
      schema: {
        tags,
        summary: 'Tickers: best bid and ask, last price, 24-hour volume and change, open interest',
        description:
          'Every option of every open market, or only those of `eventSlug` or `optionIds` (any public market). ' +
          'Bid and ask are YES prices with the shares offered there, the house market maker’s quote included; ' +
          'the 24-hour figures come from the minute candles.',
        querystring: TickerQuery,
        response: { 200: Tickers, ...errors(400) },
      },
    },
    async (request, reply) => {
      const { eventSlug, optionIds } = request.query;
      const filter = {
        eventSlug,
        optionIds: optionIds === undefined ? undefined : [...new Set(optionIds.split(',').map(Number))],
      };
      const key = `tickers:${JSON.stringify([eventSlug ?? null, filter.optionIds ?? null])}`;
      const json = await reads.optionData(key, MARKET_READ_TTL_MS, null, async () => {
        const tickers = await data.tickers(filter);
        return {
          value: serializer(reply)(tickers),
          optionIds: tickers.data.map((ticker) => Number(ticker.optionId)),
        };
      });
      return sendJson(reply, json);
    },
  );

  app.get(
    '/api/options/:optionId/quote',
    {
      schema: {
        tags,
        summary: 'Quote for a size: the exact cost of buying or selling N shares now',
        description:
          'What a market trade (`POST /api/trades`) of `quantity` shares at worst price `priceCents` would do right ' +
          'now, decided by the very rules that decide the trade: the prices it would walk through (users’ resting ' +
          'orders, then the house market maker’s quotes at each price), the shares it would get, their cost, the ' +
          'fee, and the refusal it would meet instead (`refusal`). Nothing is placed, reserved or charged. Send ' +
          'your key to be quoted as yourself: your own resting orders are then left out (self-trade prevention ' +
          'cancels them rather than fill them), and your cash and shares are checked as the trade would check ' +
          'them. Anyone else may trade in between: the trade gets what the book holds when it arrives, never a ' +
          'price worse than its `priceCents`.',
        params: OptionParams,
        querystring: QuoteQuery,
        response: { 200: Quote, ...errors(400, 404) },
      },
    },
    async (request) =>
      quotes.quote(
        { ...request.query, optionId: Number(request.params.optionId) },
        request.user?.userId ?? null,
      ),
  );

  app.get(
    '/api/orders/:id',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['Trading'],
        security,
        summary: 'One of your orders, market or limit',
        description:
          'As the order lists show it, whatever its status. 404 for an order that is not yours. Its executions: ' +
          '`GET /api/me/fills?orderId=`.',
        params: IdParams,
        response: { 200: OrderListItem, ...errors(400, 401, 404) },
      },
    },
    async (request) => data.userOrder(currentUser(request).userId, Number(request.params.id)),
  );

  app.get(
    '/api/options/:optionId/trades',
    {
      schema: {
        tags,
        summary: 'The public tape of an option',
        description: tapeDescription,
        params: OptionParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Page(TapeTrade), ...errors(400, 404) },
      },
    },
    async (request, reply) => {
      const optionId = Number(request.params.optionId);
      const limit = request.query.limit ?? 50;
      const cursor = decodeCursor(request.query.cursor, 1);
      const key = `tape:${optionId}:${cursor?.[0] ?? ''}:${limit}`;
      const json = await reads.optionData(key, ORDER_BOOK_TTL_MS, [optionId], async () => ({
        value: serializer(reply)(await data.optionTape(optionId, cursor ? Number(cursor[0]) : null, limit)),
        optionIds: [optionId],
      }));
      return sendJson(reply, json);
    },
  );

  app.get(
    '/api/events/by-slug/:slug/trades',
    {
      schema: {
        tags,
        summary: 'The public tape of an event (all its options)',
        description: tapeDescription,
        params: SlugParams,
        querystring: Type.Object(PageQuery),
        response: { 200: Page(TapeTrade), ...errors(400, 404) },
      },
    },
    async (request, reply) => {
      const limit = request.query.limit ?? 50;
      const cursor = decodeCursor(request.query.cursor, 1);
      const key = `event-tape:${JSON.stringify([request.params.slug, cursor?.[0] ?? null, limit])}`;
      const json = await reads.optionData(key, ORDER_BOOK_TTL_MS, null, async () => {
        const { optionIds, ...page } = await data.eventTape(
          request.params.slug,
          cursor ? Number(cursor[0]) : null,
          limit,
        );
        return { value: serializer(reply)(page), optionIds };
      });
      return sendJson(reply, json);
    },
  );

  app.get(
    '/api/me/fills',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Your fills: every execution of your orders, newest first',
        description:
          'Each with its order, your role (maker: your order was resting; taker: it took liquidity), your side’s ' +
          'price, the YES price, quantity, notional and fee. `optionId`, `eventSlug` or `orderId` narrows the list. ' +
          'Every field is a single value (no nesting), so a page is a table as it stands.',
        querystring: Type.Object({
          optionId: Type.Optional(IdString),
          eventSlug: EventSlugFilter,
          orderId: Type.Optional(IdString),
          ...PageQuery,
        }),
        response: { 200: Page(Fill), ...errors(400, 401) },
      },
    },
    async (request) => {
      const { optionId, eventSlug, orderId } = request.query;
      const limit = request.query.limit ?? 50;
      const cursor = decodeCursor(request.query.cursor, 1);
      return data.userFills(
        currentUser(request).userId,
        {
          optionId: optionId === undefined ? undefined : Number(optionId),
          eventSlug,
          orderId: orderId === undefined ? undefined : Number(orderId),
        },
        cursor ? Number(cursor[0]) : null,
        limit,
      );
    },
  );

  app.get(
    '/api/me/settlements',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Your settlements: what each option paid you when it settled, newest first',
        description:
          'One row per option and side you held at settlement: the outcome, the shares held, the payout (100 a ' +
          'winning share, 50 a share of either side when void) and the P&L against their cost. `eventSlug` ' +
          'narrows the list.',
        querystring: Type.Object({ eventSlug: EventSlugFilter, ...PageQuery }),
        response: { 200: Page(Settlement), ...errors(400, 401) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const cursor = decodeCursor(request.query.cursor, 1);
      return data.userSettlements(
        currentUser(request).userId,
        { eventSlug: request.query.eventSlug },
        cursor ? Number(cursor[0]) : null,
        limit,
      );
    },
  );

  app.get(
    '/api/me/portfolio-history',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Your portfolio’s value over time',
        description:
          'Cash + reserved + positions at their marks, at evenly spaced times: every 5 minutes over `1d`, every ' +
          'hour over `1w`, every 4 hours over `1m`, and for `all` (since you registered) the finest of 5 minutes, ' +
          '1 hour, 4 hours, 1 day and 1 week that keeps it to 500 points. The last point is now and equals the ' +
          'portfolio summary’s total. A position is marked at its side of the last close before each time, or at ' +
          'what a share pays once its option was resolved.',
        querystring: Type.Object({
          range: Type.Optional(
            Type.Union(
              ['1d', '1w', '1m', 'all'].map((r) => Type.Literal(r)),
              { default: '1w' },
            ),
          ),
        }),
        response: { 200: PortfolioHistory, ...errors(400, 401) },
      },
    },
    async (request) =>
      data.portfolioHistory(
        currentUser(request).userId,
        (request.query.range ?? '1w') as '1d' | '1w' | '1m' | 'all',
      ),
  );
};

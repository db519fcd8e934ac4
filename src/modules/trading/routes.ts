import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { currentUser } from '../../platform/auth.js';
import { decodeCursor, errors, IdParams, Page, PageQuery, toPage } from '../../platform/http.js';
import type { MarketCatalogue } from '../markets/catalogue.js';
import {
  EventSlugFilter,
  IdempotencyHeaders,
  LimitOrderBody,
  OrderListItem,
  OrderView,
  PlacedOrderView,
  Portfolio,
  TradeBody,
  TradeListItem,
} from './schemas.js';
import type { TradingService } from './service.js';
import type { OrderRequest } from './types.js';
import { toOrderView, toTradeView } from './views.js';

const tags = ['Trading'];
const security = [{ bearerAuth: [] }];
const idempotency =
  ' Send an `Idempotency-Key` header (or a `clientOrderId`) to make retries safe: a retry returns the first ' +
  'result and never places a second order; the same key with a different body is 409 IDEMPOTENCY_MISMATCH.';

export const tradingRoutes: FastifyPluginAsyncTypebox<{
  trading: TradingService;
  markets: Pick<MarketCatalogue, 'resolveOptionId'>;
}> = async (app, { trading, markets }) => {
  /** Both ways of placing an order: name the option, place it idempotently, answer 201 (or the replayed result). */
  const place = async (
    request: FastifyRequest,
    reply: FastifyReply,
    ref: { optionId?: string | undefined; eventSlug?: string | undefined; optionLabel?: string | undefined },
    order: Omit<OrderRequest, 'optionId'>,
  ) => {
    const optionId = await markets.resolveOptionId(ref);
    const key = request.headers['idempotency-key'];
    const result = await trading.placeOrder(
      currentUser(request).userId,
      { ...order, optionId },
      typeof key === 'string' ? key : null,
    );
    if (result.replayed) reply.header('idempotent-replayed', 'true');
    return reply.status(result.status as 201).send(result.body as never);
  };

  app.post(
    '/api/trades',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Place a market trade',
        description:
          'Immediate-or-cancel: fills against the book and the house market maker at prices no worse than ' +
          '`priceCents`, each fill at the resting price (any improvement is yours); the unfilled rest is cancelled ' +
          'and reported. Name the option by `optionId` or by `eventSlug` + `optionLabel`. A BUY needs ' +
          'priceCents × quantity (+ fee) in cash (402 INSUFFICIENT_FUNDS); a SELL needs the shares (409 ' +
          'INSUFFICIENT_SHARES). 409 NO_LIQUIDITY when nothing can fill (nothing charged), 409 MARKET_CLOSED when ' +
          'the market is not open.' +
          idempotency,
        headers: IdempotencyHeaders,
        body: TradeBody,
        response: { 201: PlacedOrderView, ...errors(400, 401, 402, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      const { priceCents, side, action, quantity, clientOrderId, ...ref } = request.body;
      return place(request, reply, ref, {
        kind: 'market',
        side,
        action,
        quantity,
        priceCents,
        clientOrderId,
      });
    },
  );

  app.get(
    '/api/trades',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Your trades (executions), newest first',
        description:
          '`status=open`: trades in markets not yet settled; `status=closed`: in settled markets; absent: all. ' +
          '`eventSlug`: only the trades in that event.',
        querystring: Type.Object({
          status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
          eventSlug: EventSlugFilter,
          ...PageQuery,
        }),
        response: { 200: Page(TradeListItem), ...errors(400, 401) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const cursor = decodeCursor(request.query.cursor, 1);
      const { status, eventSlug } = request.query;
      const rows = await trading.listTrades(
        currentUser(request).userId,
        { settled: status === undefined ? null : status === 'closed', eventSlug },
        cursor ? Number(cursor[0]) : null,
        limit,
      );
      return toPage(
        rows,
        limit,
        (row) => ({ ...toTradeView(row), eventTitle: row.event_title }),
        (row) => [row.id],
      );
    },
  );

  app.post(
    '/api/limit-orders',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Place a limit order',
        description:
          'Fills at once against whatever crosses it (at the resting prices), and the rest rests on the book at ' +
          '`limitPriceCents` until filled, cancelled or expired (`expiresInHours` 1..720; absent = good till ' +
          'cancelled). A BUY reserves limitPriceCents × quantity cash; a SELL reserves the shares. Your own ' +
          'resting orders on the other side are cancelled rather than filled (self-trade prevention).' +
          idempotency,
        headers: IdempotencyHeaders,
        body: LimitOrderBody,
        response: { 201: PlacedOrderView, ...errors(400, 401, 402, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      const { limitPriceCents, expiresInHours, side, action, quantity, clientOrderId, ...ref } = request.body;
      return place(request, reply, ref, {
        kind: 'limit',
        side,
        action,
        quantity,
        priceCents: limitPriceCents,
        expiresInHours,
        clientOrderId,
      });
    },
  );

  app.get(
    '/api/limit-orders',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Your limit orders',
        description:
          '`status=open` (default): open and partially filled; `status=history`: filled, cancelled and expired. ' +
          '`eventSlug`: only the orders in that event.',
        querystring: Type.Object({
          status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('history')])),
          eventSlug: EventSlugFilter,
          ...PageQuery,
        }),
        response: { 200: Page(OrderListItem), ...errors(400, 401) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const cursor = decodeCursor(request.query.cursor, 1);
      const rows = await trading.listOrders(
        currentUser(request).userId,
        { open: request.query.status !== 'history', eventSlug: request.query.eventSlug },
        cursor ? Number(cursor[0]) : null,
        limit,
      );
      return toPage(
        rows,
        limit,
        (row) => ({ ...toOrderView(row), eventTitle: row.event_title }),
        (row) => [row.id],
      );
    },
  );

  app.delete(
    '/api/limit-orders/:id',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Cancel a limit order',
        description:
          'Releases what the order held. 409 ORDER_NOT_OPEN when it is no longer open; 404 for another user’s order.',
        params: IdParams,
        response: { 200: OrderView, ...errors(400, 401, 404, 409, 503) },
      },
    },
    async (request) => trading.cancelOrder(currentUser(request).userId, Number(request.params.id)),
  );

  app.get(
    '/api/positions',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Your positions and portfolio summary',
        description:
          'One position per option and side you hold. markPriceCents is the last traded price of that side; value ' +
          'and unrealized P&L use it (cost when the option has never traded).',
        response: { 200: Portfolio, ...errors(401) },
      },
    },
    async (request) => trading.portfolio(currentUser(request).userId),
  );
};

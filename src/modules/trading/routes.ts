import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { credentialOf, currentUser, keyLimitsOf } from '../../platform/auth.js';
import { decodeCursor, errors, IdParams, Page, PageQuery, toPage } from '../../platform/http.js';
import { givingBackOn503, orderCharge } from '../../platform/order-budget.js';
import type { TradingReads } from './reads.js';
import {
  EventSlugFilter,
  IdempotencyHeaders,
  LimitOrderBody,
  OrderListItem,
  OrderView,
  PlacedOrderView,
  Portfolio,
  PositionsQuery,
  TradeBody,
  TradeListItem,
} from './schemas.js';
import type { TradingService } from './service.js';
import type { OptionResolver, OrderRequest } from './types.js';
import { positionAfterCursor, toOrderView, toTradeView } from './views.js';

/** A limit order body as the trading service takes it (the option named apart). */
export function limitOrderOf(body: Static<typeof LimitOrderBody>): Omit<OrderRequest, 'optionId'> {
  return {
    kind: 'limit',
    side: body.side,
    action: body.action,
    quantity: body.quantity,
    priceCents: body.limitPriceCents,
    timeInForce: body.timeInForce,
    postOnly: body.postOnly,
    expiresAt: body.expiresAt === undefined ? undefined : new Date(body.expiresAt),
    expiresInHours: body.expiresInHours,
    clientOrderId: body.clientOrderId,
  };
}

const tags = ['Trading'];
const security = [{ bearerAuth: [] }];
const idempotency =
  ' Send an `Idempotency-Key` header (or a `clientOrderId`) to make retries safe: a retry returns the first ' +
  'result and never places a second order; the same key with a different body is 409 IDEMPOTENCY_MISMATCH.';

export const tradingRoutes: FastifyPluginAsyncTypebox<{
  trading: TradingService;
  reads: TradingReads;
  markets: OptionResolver;
}> = async (app, { trading, reads, markets }) => {
  /** Both ways of placing an order: name the option, place it idempotently, answer 201 (or the replayed result). */
  const place = async (
    request: FastifyRequest,
    reply: FastifyReply,
    ref: { optionId?: string | undefined; eventSlug?: string | undefined; optionLabel?: string | undefined },
    order: Omit<OrderRequest, 'optionId'>,
  ) => {
    const { userId } = currentUser(request);
    const optionId = await markets.resolveOptionId(ref);
    const key = request.headers['idempotency-key'];
    const budget = orderCharge(app.orderBudget, userId, reply);
    const result = await givingBackOn503(budget, () =>
      trading.placeOrder(
        userId,
        { ...order, optionId, placedBy: credentialOf(request), keyLimits: keyLimitsOf(request) },
        typeof key === 'string' ? key : null,
        budget.charge,
      ),
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
      const rows = await reads.listTrades(
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
          'Fills at once against whatever crosses it (at the resting prices); what is left rests on the book at ' +
          '`limitPriceCents` as its `timeInForce` says: GTC (the default) until filled or cancelled, GTD until ' +
          '`expiresAt` (or `expiresInHours` 1..720 after it is placed), IOC not at all (the rest is cancelled), FOK ' +
          'all or nothing (409 FOK_NOT_FILLED when it cannot fill whole at once; nothing placed or charged). ' +
          '`postOnly` orders only ever rest: 409 POST_ONLY_WOULD_TAKE when one would trade on arrival. A BUY reserves ' +
          'limitPriceCents × quantity cash; a SELL reserves the shares. Your own resting orders on the other side are ' +
          'cancelled rather than filled (self-trade prevention). Counts one against the order budget.' +
          idempotency,
        headers: IdempotencyHeaders,
        body: LimitOrderBody,
        response: { 201: PlacedOrderView, ...errors(400, 401, 402, 404, 409, 503) },
      },
    },
    async (request, reply) => place(request, reply, request.body, limitOrderOf(request.body)),
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
      const rows = await reads.listOrders(
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
      config: { pulls: true },
      schema: {
        tags,
        security,
        summary: 'Cancel a limit order',
        description:
          'Releases what the order held. 409 ORDER_NOT_OPEN when it is no longer open; 404 for another user’s order. ' +
          'Draws on the budget for pulling quotes (RATE_LIMIT_PULL_MAX), not the request budget.',
        params: IdParams,
        response: { 200: OrderView, ...errors(400, 401, 404, 409, 503) },
      },
    },
    async (request) => trading.cancels.cancelOrder(currentUser(request).userId, Number(request.params.id)),
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
          'One position per option and side you hold, in the order of the option and the side. A share is marked ' +
          '(`markPriceCents`) by the valuation rule: once the option is resolved, what a share of its side pays; ' +
          'else its side of the option’s last traded price; else, for an option of an exclusive event that has ' +
          'never traded, its side of the price the event’s last conversion booked it at. Value is shares × mark, ' +
          'unrealized P&L the value less the cost. With `limit` (1..500) the positions come in pages: pass ' +
          '`nextCursor` as `cursor` for the next one (null on the last). Without `limit` every position (after ' +
          '`cursor`, if given) comes in one answer, as before; new clients should page. The `summary` is over all your positions whatever the page.',
        querystring: PositionsQuery,
        response: { 200: Portfolio, ...errors(400, 401) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const after = positionAfterCursor(decodeCursor(cursor, 2));
      return reads.portfolio(currentUser(request).userId, { limit: limit ?? null, after });
    },
  );
};

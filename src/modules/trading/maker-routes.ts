import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { credentialOf, currentUser, keyLimitsOf } from '../../platform/auth.js';
import { toErrorResponse } from '../../platform/errors.js';
import { errors, IdParams } from '../../platform/http.js';
import { givingBackOn503, orderCharge } from '../../platform/order-budget.js';
import type { HeartbeatService } from './heartbeats.js';
import {
  AmendBody,
  AmendResult,
  BatchOrdersBody,
  BatchOrdersResult,
  CancelAllBody,
  CancelAllResult,
  CancelOrdersBody,
  CancelOrdersResult,
  HeartbeatBody,
  HeartbeatView,
} from './maker-schemas.js';
import { limitOrderOf } from './routes.js';
import { IdempotencyHeaders } from './schemas.js';
import type { TradingService } from './service.js';
import type { OptionResolver } from './types.js';

const tags = ['Market makers'];
const security = [{ bearerAuth: [] }];

function idempotencyKeyOf(request: FastifyRequest): string | null {
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' ? key : null;
}

/** One part of a many-part answer: its own answer, or its error in the shape and status it would have had alone. */
function partOf(
  outcome: { result: unknown } | { error: unknown },
  status: number,
  log: FastifyRequest['log'],
) {
  if ('result' in outcome) return { status, order: outcome.result };
  const { status: failed, body } = toErrorResponse(outcome.error);
  if (failed >= 500 && failed !== 503) log.error({ err: outcome.error }, 'a part of a request failed');
  return { status: failed, error: body };
}

/**
 * One answer shape for a request of many parts that a passing fault (503) refused: when nothing was done and every
 * part refused met a 503, the whole request is refused with it (its status, code and Retry-After), as a single
 * order would be; otherwise each part has its result, and Retry-After tells when the parts refused with 503 may be
 * tried again.
 */
function refuseWholeOrRetryLater(done: number, refusals: unknown[], reply: FastifyReply): void {
  const unavailable = refusals.filter((error) => toErrorResponse(error).status === 503);
  if (unavailable.length === 0) return;
  if (done === 0 && unavailable.length === refusals.length) throw unavailable[0];
  const seconds = unavailable.map((error) => {
    const details = toErrorResponse(error).body.details as { retryAfterSeconds?: unknown } | undefined;
    return typeof details?.retryAfterSeconds === 'number' ? details.retryAfterSeconds : 1;
  });
  reply.header('retry-after', Math.max(...seconds));
}

const refusalsOf = (outcomes: ({ result: unknown } | { error: unknown })[]) =>
  outcomes.flatMap((outcome) => ('error' in outcome ? [outcome.error] : []));

/**
 * The order tools of market makers: batches, cancel by ids and cancel-all, amend, and the dead man's switch. Every
 * one goes through the one order pipeline; orders placed draw on the order budget, cancels never do.
 */
export const makerRoutes: FastifyPluginAsyncTypebox<{
  trading: TradingService;
  heartbeats: HeartbeatService;
  markets: OptionResolver;
  maxBatchOrders: number;
}> = async (app, { trading, heartbeats, markets, maxBatchOrders }) => {
  app.post(
    '/api/limit-orders/batch',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Place a batch of limit orders',
        description:
          `Up to ${maxBatchOrders} limit orders (MAX_BATCH_ORDERS) in one request, on any options, each decided as ` +
          'if placed alone, in the order given, with its own result: the placed order (status 201) or the error it ' +
          'met (402, 404, 409 …), so one refused order does not refuse the rest. Consecutive orders on one market ' +
          'go in one transaction; a body that does not match the schema is refused whole (400). The request counts ' +
          'once against the request budget and once per order against the order budget (429 ORDER_RATE_LIMITED, ' +
          'nothing placed; an order refused with 503 gives its part back). A passing fault that refuses every ' +
          'order (503: database read-only, disk full …) refuses the whole request with that 503 and Retry-After; ' +
          'some orders refused with 503 among others: 200, with Retry-After. With an `Idempotency-Key`, a retry ' +
          'answers each order’s first result and places only ' +
          'those not placed before; the same key with another batch is 409 IDEMPOTENCY_MISMATCH. Without one, an ' +
          'order’s `clientOrderId` makes it idempotent alone.',
        headers: IdempotencyHeaders,
        body: BatchOrdersBody(maxBatchOrders),
        response: { 200: BatchOrdersResult, ...errors(400, 401, 409, 429, 503) },
      },
    },
    async (request, reply) => {
      const { userId } = currentUser(request);
      const placedBy = credentialOf(request);
      const budget = orderCharge(app.orderBudget, userId, reply);
      const keyLimits = keyLimitsOf(request);
      const items = await Promise.all(
        request.body.orders.map(async (body) => {
          try {
            const optionId = await markets.resolveOptionId(body);
            return { order: { ...limitOrderOf(body), optionId, placedBy, keyLimits } };
          } catch (error) {
            return { error };
          }
        }),
      );
      const { outcomes, replayed } = await trading.placeBatch(
        userId,
        items,
        idempotencyKeyOf(request),
        budget.charge,
      );
      const refusals = refusalsOf(outcomes);
      await budget.giveBack(refusals.filter((error) => toErrorResponse(error).status === 503).length);
      refuseWholeOrRetryLater(outcomes.length - refusals.length, refusals, reply);
      if (replayed) reply.header('idempotent-replayed', 'true');
      const data = outcomes.map((outcome) =>
        'result' in outcome
          ? { status: outcome.result.status, order: outcome.result.body }
          : partOf(outcome, 201, request.log),
      );
      return { data } as never;
    },
  );

  app.post(
    '/api/limit-orders/cancel',
    {
      onRequest: app.authenticate,
      config: { pulls: true },
      schema: {
        tags,
        security,
        summary: 'Cancel several limit orders',
        description:
          'Cancels each of the orders named, with a result per id: the cancelled order (status 200), 404 for an ' +
          'order that is not yours, 409 ORDER_NOT_OPEN for one no longer open, 503 for one its market could not ' +
          'cancel now (the answer then carries Retry-After; every id refused with 503: the whole request is that ' +
          '503). Draws on the budget for pulling ' +
          'quotes (RATE_LIMIT_PULL_MAX), never on the request or the order budget.',
        body: CancelOrdersBody,
        response: { 200: CancelOrdersResult, ...errors(400, 401, 503) },
      },
    },
    async (request, reply) => {
      const { orderIds } = request.body;
      const outcomes = await trading.cancels.cancelOrders(currentUser(request).userId, orderIds.map(Number));
      const refusals = refusalsOf(outcomes);
      refuseWholeOrRetryLater(outcomes.length - refusals.length, refusals, reply);
      // Each id as it was sent: a number past 2^53 would not print back the same.
      const data = outcomes.map((outcome, index) => ({
        orderId: orderIds[index],
        ...partOf(outcome, 200, request.log),
      }));
      return { data } as never;
    },
  );

  app.post(
    '/api/limit-orders/cancel-all',
    {
      onRequest: app.authenticate,
      config: { pulls: true },
      schema: {
        tags,
        security,
        summary: 'Cancel all your resting orders, or those a filter takes',
        description:
          'Cancels every resting order of yours that the filters take (`optionId`, `eventSlug`, `side`, `action`; ' +
          'none: all of them), through the order pipeline like single cancels (stream, webhooks, feed), and answers ' +
          'the orders it cancelled, and per market (`markets`) what it did: cancelled, or left resting with the ' +
          'error met (503 OPTION_BUSY …; the answer then carries Retry-After). Nothing cancelled and every market ' +
          'refused with 503: the whole request is that 503. An order that fills or ends meanwhile is simply not ' +
          'among them. Draws on the ' +
          'budget for pulling quotes (RATE_LIMIT_PULL_MAX), never on the request or the order budget: pulling ' +
          'quotes always works.',
        body: CancelAllBody,
        response: { 200: CancelAllResult, ...errors(400, 401, 503) },
      },
    },
    async (request, reply) => {
      const { optionId, ...filter } = request.body;
      const { cancelled, markets } = await trading.cancels.cancelAll(currentUser(request).userId, {
        ...filter,
        optionId: optionId === undefined ? undefined : Number(optionId),
      });
      const refused = markets.filter((market) => market.refusedCount > 0);
      refuseWholeOrRetryLater(
        cancelled.length,
        refused.map((market) => market.error),
        reply,
      );
      return {
        data: cancelled,
        cancelledCount: cancelled.length,
        markets: markets.map((market) => ({
          optionId: String(market.optionId),
          cancelledCount: market.cancelledCount,
          refusedCount: market.refusedCount,
          ...(market.refusedCount > 0 ? partOf({ error: market.error }, 200, request.log) : { status: 200 }),
        })),
      } as never;
    },
  );

  app.post(
    '/api/limit-orders/:id/amend',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Amend a resting limit order',
        description:
          'Fewer shares left at the same price (`remainingQuantity` below what is left): the order shrinks where it ' +
          'stands, keeping its time priority, and frees what it no longer needs. A new `limitPriceCents`, or more ' +
          'shares: one atomic cancel-and-replace; the old order ends `cancelled` (reason `replaced`) and a new one ' +
          '(`replacesOrderId` = the old id) is placed behind the orders already at its price, with the same side, ' +
          'time in force, expiry and post-only flag; it may fill at once if its price crosses. If the replacement ' +
          'cannot be placed (402, 409 INSUFFICIENT_SHARES, 409 POST_ONLY_WOULD_TAKE) nothing changes. Counts one ' +
          'against the order budget. With an `Idempotency-Key`, a retry answers the first result.',
        params: IdParams,
        headers: IdempotencyHeaders,
        body: AmendBody,
        response: { 200: AmendResult, ...errors(400, 401, 402, 404, 409, 429, 503) },
      },
    },
    async (request, reply) => {
      const { userId } = currentUser(request);
      const { remainingQuantity, limitPriceCents, clientOrderId } = request.body;
      const budget = orderCharge(app.orderBudget, userId, reply);
      const result = await givingBackOn503(budget, () =>
        trading.amendOrder(
          userId,
          Number(request.params.id),
          { remainingQuantity, priceCents: limitPriceCents, ...(clientOrderId ? { clientOrderId } : {}) },
          {
            idempotencyKey: idempotencyKeyOf(request),
            placedBy: credentialOf(request),
            keyLimits: keyLimitsOf(request),
            charge: budget.charge,
          },
        ),
      );
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.status(200).send(result.body as never);
    },
  );

  const heartbeatDescription =
    'The dead man’s switch of the credential (API key or session) this request is sent with: once armed, if no ' +
    'heartbeat arrives within `timeoutSeconds`, every resting order this credential placed is cancelled (reason ' +
    '`heartbeat_lapsed`, announced like any cancel) and the switch disarms until the next heartbeat. Any instance ' +
    'may receive the heartbeats; the state is kept in the database and checked by every instance about every ' +
    'second (HEARTBEAT_CHECK_MS), so the orders go within about a second of the timeout, across restarts. Draws on ' +
    'the budget for pulling quotes (RATE_LIMIT_PULL_MAX), never on the request budget.';

  app.post(
    '/api/heartbeat',
    {
      onRequest: app.authenticate,
      config: { pulls: true },
      schema: {
        tags,
        security,
        summary: 'Send a heartbeat (arm or keep the dead man’s switch)',
        description: `${heartbeatDescription} Each heartbeat pushes the deadline \`timeoutSeconds\` on.`,
        body: HeartbeatBody,
        response: { 200: HeartbeatView, ...errors(400, 401) },
      },
    },
    async (request) =>
      heartbeats.beat(currentUser(request).userId, credentialOf(request), request.body.timeoutSeconds),
  );

  app.get(
    '/api/heartbeat',
    {
      onRequest: app.authenticate,
      config: { pulls: true },
      schema: {
        tags,
        security,
        summary: 'The dead man’s switch of this credential',
        description: heartbeatDescription,
        response: { 200: HeartbeatView, ...errors(401) },
      },
    },
    async (request) => heartbeats.status(credentialOf(request)),
  );

  app.delete(
    '/api/heartbeat',
    {
      onRequest: app.authenticate,
      config: { pulls: true },
      schema: {
        tags,
        security,
        summary: 'Disarm the dead man’s switch',
        description: 'Disarms the switch of this credential; nothing is cancelled.',
        response: { 200: HeartbeatView, ...errors(401) },
      },
    },
    async (request) => heartbeats.disarm(credentialOf(request)),
  );
};

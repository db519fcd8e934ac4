import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../platform/auth.js';
import { decodeCursor, errors, IdParams, Page, PageQuery, toPage } from '../../platform/http.js';
import type { TradingReads } from './reads.js';
import { ConversionBody, ConversionView, EventSlugFilter, IdempotencyHeaders } from './schemas.js';
import type { TradingService } from './service.js';
import { conversionViewOf } from './views.js';

const tags = ['Trading'];
const security = [{ bearerAuth: [] }];

/** Conversions between the shares of an exclusive event's options. */
export const conversionRoutes: FastifyPluginAsyncTypebox<{
  trading: TradingService;
  reads: TradingReads;
  maxQuantity: number;
}> = async (app, { trading, reads, maxQuantity }) => {
  app.post(
    '/api/events/:id/conversions',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Convert shares between the options of an exclusive event',
        description:
          'In an exclusive event exactly one option wins, so NO on an option pays what YES on every other option ' +
          'pays together. `convert`: give `quantity` NO shares of each of the k options in `optionIds`, receive ' +
          '`quantity` YES shares of every other option and (k − 1) × 100 cents a unit. `split`: pay 100 cents a unit ' +
          'for one YES share of every option. `merge`: give one YES share of every option for 100 cents a unit. ' +
          'The shares given must be free (not held by your open SELL orders: 409 INSUFFICIENT_SHARES); a split ' +
          'needs the cash (402 INSUFFICIENT_FUNDS). Each leg is booked at the house’s chance of its option, so a ' +
          'conversion neither gains nor loses value in your P&L. 409 EVENT_NOT_EXCLUSIVE for an event whose ' +
          'options are independent; 409 MARKET_CLOSED once the event is resolved. Send an `Idempotency-Key` header ' +
          'to make retries safe: a retry returns the first result and never converts twice.',
        params: IdParams,
        headers: IdempotencyHeaders,
        body: ConversionBody(maxQuantity),
        response: { 201: ConversionView, ...errors(400, 401, 402, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const { type, quantity } = body;
      const optionIds = body.type === 'convert' ? body.optionIds : [];
      const key = request.headers['idempotency-key'];
      const result = await trading.convert(
        currentUser(request).userId,
        Number(request.params.id),
        { kind: type, quantity, optionIds: optionIds.map(Number) },
        typeof key === 'string' ? key : null,
      );
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.status(201).send(result.body as never);
    },
  );

  app.get(
    '/api/conversions',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Your conversions, newest first',
        description: '`eventSlug`: only the conversions in that event.',
        querystring: Type.Object({ eventSlug: EventSlugFilter, ...PageQuery }),
        response: { 200: Page(ConversionView), ...errors(400, 401) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const cursor = decodeCursor(request.query.cursor, 1);
      const rows = await reads.listConversions(
        currentUser(request).userId,
        request.query.eventSlug,
        cursor ? Number(cursor[0]) : null,
        limit,
      );
      return toPage(rows, limit, conversionViewOf, (row) => [row.id]);
    },
  );
};

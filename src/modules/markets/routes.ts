import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { currentUser } from '../../platform/auth.js';
import { errors, IdParams, IdString, Page, PageQuery } from '../../platform/http.js';
import type { Markets } from './module.js';
import type { MarketReadCache } from './read-cache.js';
import {
  DisputeBody,
  DisputeView,
  EventDetail,
  EventListItem,
  ExchangeStatus,
  IdList,
  Leaderboard,
  OptionListItem,
  OrderBookView,
  ServerTime,
} from './schemas.js';

const tags = ['Markets'];

/** The route's own response serializer, as text to cache (see MarketReadCache). */
export function serializer(reply: FastifyReply) {
  return (value: unknown): string => {
    const json = reply.serialize(value);
    return typeof json === 'string' ? json : Buffer.from(json as ArrayBuffer).toString('utf8');
  };
}

/** Sends JSON text made by `serializer`: the same bytes and headers as a serialized object. */
export function sendJson(reply: FastifyReply, json: string) {
  return reply.type('application/json; charset=utf-8').send(json);
}

export const marketsRoutes: FastifyPluginAsyncTypebox<{
  markets: Pick<Markets, 'catalogue' | 'disputes' | 'status'>;
  reads: MarketReadCache;
}> = async (app, { markets, reads }) => {
  app.get(
    '/api/events',
    {
      schema: {
        tags,
        summary: 'List markets',
        description:
          'Newest first. `category` filters by category, `featured=1` to featured markets, `q` is a full-text ' +
          'search over titles and descriptions (web-search syntax: words, "quoted phrases", -excluded; each word also ' +
          'matches as the start of a word, `infl` finding "Inflation"), `status` ' +
          'to one lifecycle state (default: all but drafts), `ids` to the events named (unknown ids are left out). ' +
          'Cursor-paginated.',
        querystring: Type.Object({
          ids: Type.Optional(IdList('events')),
          category: Type.Optional(Type.String({ maxLength: 60 })),
          featured: Type.Optional(
            Type.Union([Type.Literal('1'), Type.Literal('0'), Type.Literal('true'), Type.Literal('false')]),
          ),
          q: Type.Optional(Type.String({ maxLength: 200 })),
          status: Type.Optional(
            Type.Union(['open', 'closed', 'resolved', 'settled'].map((s) => Type.Literal(s))),
          ),
          ...PageQuery,
        }),
        response: { 200: Page(EventListItem), ...errors(400) },
      },
    },
    async (request, reply) => {
      const { featured, limit, ids, ...rest } = request.query;
      const query = {
        ...rest,
        ids: ids === undefined ? undefined : [...new Set(ids.split(',').map(Number))],
        featured: featured === undefined ? undefined : featured === '1' || featured === 'true',
        limit: limit ?? 50,
      };
      return sendJson(reply, await reads.listEvents(query, serializer(reply)));
    },
  );

  app.get(
    '/api/events/:slug',
    {
      schema: {
        tags,
        summary: 'One market with its options, prices and price history',
        params: Type.Object({ slug: Type.String({ maxLength: 200 }) }),
        querystring: Type.Object({
          range: Type.Optional(
            Type.Union(
              ['1d', '1w', '1m', 'all'].map((r) => Type.Literal(r)),
              { default: 'all' },
            ),
          ),
        }),
        response: { 200: EventDetail, ...errors(400, 404) },
      },
    },
    async (request, reply) => {
      const range = (request.query.range ?? 'all') as '1d' | '1w' | '1m' | 'all';
      return sendJson(reply, await reads.event(request.params.slug, range, serializer(reply)));
    },
  );

  app.get(
    '/api/events/by-slug/:slug',
    {
      schema: {
        tags,
        summary: 'Lightweight lookup of a market: id and title',
        params: Type.Object({ slug: Type.String({ maxLength: 200 }) }),
        response: {
          200: Type.Object({
            id: IdString,
            slug: Type.String(),
            title: Type.String(),
            status: Type.String(),
          }),
          ...errors(404),
        },
      },
    },
    async (request, reply) => sendJson(reply, await reads.lookup(request.params.slug, serializer(reply))),
  );

  app.get(
    '/api/orderbook/:optionId',
    {
      schema: {
        tags,
        summary: 'Aggregated order book of an option',
        description:
          'Price levels (price, quantity, order count) for bids and asks, best first, from the YES and the NO ' +
          'point of view (a YES bid at p is a NO ask at 100 − p). The house market maker’s depth is included and ' +
          'shown separately as houseQuantity.',
        params: Type.Object({ optionId: IdString }),
        response: { 200: OrderBookView, ...errors(400, 404) },
      },
    },
    async (request, reply) => {
      const optionId = Number(request.params.optionId);
      return sendJson(reply, await reads.orderBook(optionId, serializer(reply)));
    },
  );

  app.get(
    '/api/options',
    {
      schema: {
        tags,
        summary: 'Options by id, with their prices and events',
        description:
          'The options named by `ids` (up to 100) of public markets, each with its prices, volume, resolution and ' +
          'the event it belongs to; unknown ids and draft markets are left out. Newest event first, and within an ' +
          'event the options in their order.',
        querystring: Type.Object({ ids: IdList('options') }),
        response: { 200: Type.Object({ data: Type.Array(OptionListItem) }), ...errors(400) },
      },
    },
    async (request) => markets.catalogue.optionsByIds([...new Set(request.query.ids.split(',').map(Number))]),
  );

  app.get(
    '/api/status',
    {
      schema: {
        tags,
        summary: 'Trading status of the exchange and of the markets where it differs',
        description:
          'Whether orders are taken now: `trading`, `post_only` (only post-only limit orders; 409 POST_ONLY_MODE ' +
          'for the rest) or `maintenance` (no new orders, amends or conversions; 503 MAINTENANCE with ' +
          '`Retry-After`). Operators set it for the whole exchange and may hold single markets stricter, listed in ' +
          '`markets`; cancels always work. Also the server’s clock and the fees. A change reaches every instance ' +
          'within a second.',
        response: { 200: ExchangeStatus },
      },
    },
    async () => markets.status.view(),
  );

  app.get(
    '/api/time',
    {
      schema: {
        tags,
        summary: 'The server’s clock',
        description: 'For clients that sign, expire or schedule against the exchange’s time.',
        response: { 200: ServerTime },
      },
    },
    async () => {
      const now = Date.now();
      return { serverTime: new Date(now).toISOString(), epochMs: now };
    },
  );

  app.get(
    '/api/leaderboard',
    {
      schema: {
        tags,
        summary: 'Top traders by profit, volume and predictions',
        description:
          '`profit`: realized profit in cents over all positions (sales and settlements), best first, of every ' +
          'trader with a realized result (a loss included). `volume`: notional traded in cents (quantity × price ' +
          'of every execution). `predictions`: number of settled positions on the winning side. Suspended ' +
          'accounts are left out of every board.',
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
        }),
        response: { 200: Leaderboard, ...errors(400) },
      },
    },
    async (request) => markets.catalogue.leaderboard(request.query.limit ?? 20),
  );

  app.post(
    '/api/events/:id/dispute',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security: [{ bearerAuth: [] }],
        summary: 'Dispute the resolution of a market',
        description:
          'Only by a user who held a position in the event, while it is resolved and inside the dispute window ' +
          '(DISPUTE_WINDOW_HOURS, default 24). Settlement waits while a dispute is pending. One per user and event. ' +
          '409 EVENT_NOT_RESOLVED before resolution, 409 DISPUTE_WINDOW_CLOSED after the window, 409 ' +
          'ALREADY_DISPUTED for a second dispute, 403 for a user who never held a position there.',
        params: IdParams,
        body: DisputeBody,
        response: { 201: DisputeView, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await markets.disputes.dispute(
            currentUser(request).userId,
            Number(request.params.id),
            request.body,
          ),
        ),
  );
};

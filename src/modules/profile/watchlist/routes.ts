import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../../platform/auth.js';
import { errors, Page, PageQuery } from '../../../platform/http.js';
import { AddToWatchlistBody, WATCHLIST_MAX_ITEMS, WatchlistItem, WatchlistParams } from './schemas.js';
import type { WatchlistService } from './service.js';

const tags = ['Account'];
const security = [{ bearerAuth: [] }];

export const watchlistRoutes: FastifyPluginAsyncTypebox<{ watchlist: WatchlistService }> = async (
  app,
  { watchlist },
) => {
  app.get(
    '/api/watchlist',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Your watchlist, most recently added first',
        querystring: Type.Object(PageQuery),
        response: { 200: Page(WatchlistItem), ...errors(400, 401) },
      },
    },
    async (request) =>
      watchlist.list(currentUser(request).userId, {
        limit: request.query.limit ?? 50,
        cursor: request.query.cursor,
      }),
  );

  app.post(
    '/api/watchlist',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Add a market to your watchlist',
        description:
          'Body: exactly one of `eventSlug` or `eventId` (400 otherwise). 201 with the entry when added; ' +
          'adding a market already on the list is harmless: 200 with the existing entry. Unknown market: ' +
          `404. At most ${WATCHLIST_MAX_ITEMS} markets: 409 WATCHLIST_FULL.`,
        body: AddToWatchlistBody,
        response: { 200: WatchlistItem, 201: WatchlistItem, ...errors(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      const { created, item } = await watchlist.add(currentUser(request).userId, request.body);
      return reply.status(created ? 201 : 200).send(item);
    },
  );

  app.delete(
    '/api/watchlist/:event',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Remove a market from your watchlist',
        description:
          'The market is named by its id (digits) or its slug. 204 whether or not it was on the list; ' +
          'an unknown market: 404.',
        params: WatchlistParams,
        response: { 204: Type.Null(), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      await watchlist.remove(currentUser(request).userId, request.params.event);
      return reply.status(204).send(null);
    },
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../../platform/auth.js';
import { errors, Page, PageQuery } from '../../../platform/http.js';
import { Settlement, SettlementsQuery } from './schemas.js';
import type { SettlementsService } from './service.js';

export const settlementsRoutes: FastifyPluginAsyncTypebox<{ settlements: SettlementsService }> = async (
  app,
  { settlements },
) => {
  app.get(
    '/api/me/settlements',
    {
      onRequest: app.authenticate,
      schema: {
        tags: ['Account'],
        security: [{ bearerAuth: [] }],
        summary: 'What settlement paid your positions',
        description:
          'One entry per position (option and side) you held when its market settled, newest first: the shares, ' +
          'the outcome, the payout and the profit or loss. A settled position leaves `GET /api/positions` (it ' +
          'holds no shares any more); this is where its result stays. `eventSlug` narrows it to one market.',
        querystring: Type.Object({ ...PageQuery, ...SettlementsQuery.properties }),
        response: { 200: Page(Settlement), ...errors(400, 401) },
      },
    },
    async (request) =>
      settlements.list(currentUser(request).userId, {
        eventSlug: request.query.eventSlug,
        limit: request.query.limit ?? 50,
        cursor: request.query.cursor,
      }),
  );
};

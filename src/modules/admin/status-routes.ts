import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentUser } from '../../platform/auth.js';
import { errors, IdParams } from '../../platform/http.js';
import type { Markets } from '../markets/module.js';
import { ExchangeStatus, SetTradingStatusBody } from '../markets/schemas.js';

const tags = ['Admin'];
const security = [{ bearerAuth: [] }];

/** The trading status operators set: the exchange's, and a market's held stricter. */
export const adminStatusRoutes: FastifyPluginAsyncTypebox<{ markets: Markets }> = async (
  app,
  { markets },
) => {
  app.put(
    '/api/admin/status',
    {
      schema: {
        tags,
        security,
        summary: 'Set the exchange’s trading status',
        description:
          '`trading`, `post_only` (only post-only limit orders are taken) or `maintenance` (no new orders, amends ' +
          'or conversions; cancels still work), with an optional message shown in `GET /api/status`. Every ' +
          'instance follows within a second. Orders already resting stay; protections and copy trading, which ' +
          'place orders of their own, are not held by it.',
        body: SetTradingStatusBody,
        response: { 200: ExchangeStatus, ...errors(400, 401, 403) },
      },
    },
    async (request) =>
      markets.status.setExchange(
        request.body.status,
        request.body.message ?? null,
        currentUser(request).userId,
      ),
  );

  app.put(
    '/api/admin/events/:id/status',
    {
      schema: {
        tags,
        security,
        summary: 'Hold one market stricter than the exchange',
        description:
          '`post_only` or `maintenance` for this event’s options alone; `trading` lets it trade as the exchange ' +
          'does again. A market trades under the stricter of its own status and the exchange’s. Answers the ' +
          'whole status, as `GET /api/status`.',
        params: IdParams,
        body: SetTradingStatusBody,
        response: { 200: ExchangeStatus, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) =>
      markets.status.setEvent(
        Number(request.params.id),
        request.body.status,
        request.body.message ?? null,
        currentUser(request).userId,
      ),
  );
};

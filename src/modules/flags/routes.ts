import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../platform/auth.js';
import { errors } from '../../platform/http.js';
import { Flag, FlagKeyParams, FlagMap, SetFlagBody } from './schemas.js';
import type { FlagsService } from './service.js';

const security = [{ bearerAuth: [] }];

export const flagsRoutes: FastifyPluginAsyncTypebox<{ flags: FlagsService }> = async (app, { flags }) => {
  app.get(
    '/api/flags',
    {
      schema: {
        tags: ['Flags'],
        summary: 'The public feature-flag map',
        description:
          'Every flag by key with its effective value, for client-side checks: `deposits`, `withdrawals`, ' +
          '`cricketLive` (also false while no cricket provider is configured), `copyTrading`, `newsSummary` ' +
          '(also false while no AI provider is configured), and `addressesVerified`, which no operator switches: ' +
          'whether the service proves addresses by mail (false without `SMTP_URL`: an address is then only what ' +
          'its user typed). A change by an operator reaches every instance ' +
          'within `FLAGS_REFRESH_MS` (2 s by default).',
        response: { 200: FlagMap, ...errors(429) },
      },
    },
    async () => flags.publicMap(),
  );

  app.get(
    '/api/admin/flags',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags: ['Admin'],
        security,
        summary: 'Every feature flag with its stored and effective value',
        description: 'The complete set of flags (a short fixed list, so not paginated).',
        response: { 200: Type.Object({ data: Type.Array(Flag) }), ...errors(401, 403, 429) },
      },
    },
    async () => ({ data: await flags.list() }),
  );

  app.put(
    '/api/admin/flags/:key',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags: ['Admin'],
        security,
        summary: 'Switch a feature flag on or off',
        description:
          'Takes effect at once on this instance and within `FLAGS_REFRESH_MS` on every other one. A flag ' +
          'with an unmet prerequisite (see `blockedBy`) stays effectively off until the prerequisite is met. ' +
          'Unknown key: 404.',
        params: FlagKeyParams,
        body: SetFlagBody,
        response: { 200: Flag, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => flags.set(request.params.key, request.body.enabled, currentUser(request).userId),
  );
};

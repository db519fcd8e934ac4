import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errors, IdParams, IdString } from '../../../platform/http.js';
import { ProviderReport } from '../schemas.js';
import type { CricketService } from './service.js';

const security = [{ bearerAuth: [] }];

const LiveMatch = Type.Object({
  id: Type.String({ description: "The provider's match id" }),
  teams: Type.Array(
    Type.Object({
      name: Type.String(),
      score: Type.Union([Type.String(), Type.Null()], { description: 'e.g. "145/3"' }),
      overs: Type.Union([Type.String(), Type.Null()], { description: 'e.g. "17.2" (17 overs and 2 balls)' }),
    }),
  ),
  status: Type.String({ description: 'The provider\'s status text, e.g. "Live" or "Innings break"' }),
  startedAt: Type.Optional(Type.String({ format: 'date-time' })),
  events: Type.Array(Type.Object({ id: IdString, slug: Type.String(), title: Type.String() }), {
    description: 'Markets linked to this match',
  }),
});

const CricketLink = Type.Object({ eventId: IdString, matchId: Type.String() });

export const cricketRoutes: FastifyPluginAsyncTypebox<{ cricket: CricketService }> = async (
  app,
  { cricket },
) => {
  app.get(
    '/api/cricket/live',
    {
      schema: {
        tags: ['Cricket'],
        summary: 'Live cricket matches with their linked markets',
        description:
          'Matches, teams, scores and overs from the cricket data provider, cached in each instance for ' +
          '`CRICKET_CACHE_SECONDS` (5 s by default), each with the markets an admin linked to it. When the ' +
          'provider is slow or failing the answer is still 200: the last scores fetched in the past 5 minutes ' +
          '(or none), with `provider.status` saying what went wrong and `fetchedAt` how old they are. No ' +
          'provider configured (`CRICKET_API_URL`): 503 PROVIDER_NOT_CONFIGURED, and the `cricketLive` flag ' +
          'reads false.',
        response: {
          200: Type.Object({
            matches: Type.Array(LiveMatch),
            fetchedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
              description: 'When these scores were fetched from the provider',
            }),
            provider: ProviderReport,
          }),
          ...errors(429, 503),
        },
      },
    },
    async () => cricket.live(),
  );

  app.put(
    '/api/admin/events/:id/cricket-match',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags: ['Admin'],
        security,
        summary: 'Link an event to a live cricket match',
        description:
          "`matchId` is the cricket provider's match id; an event links to one match (a new link replaces " +
          'the old one), a match to any number of events. Unknown event: 404.',
        params: IdParams,
        body: Type.Object(
          { matchId: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }) },
          { additionalProperties: false },
        ),
        response: { 200: CricketLink, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => cricket.link(Number(request.params.id), request.body.matchId),
  );

  app.delete(
    '/api/admin/events/:id/cricket-match',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags: ['Admin'],
        security,
        summary: 'Unlink an event from its cricket match',
        description: 'Unknown event, or an event without a link: 404.',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await cricket.unlink(Number(request.params.id));
      return reply.status(204).send(null);
    },
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errors, IdParams } from '../../../platform/http.js';
import { HttpUrl } from '../schemas.js';
import type { SponsorService } from './service.js';

const security = [{ bearerAuth: [] }];

const Sponsor = Type.Object({
  name: Type.String(),
  logoUrl: Type.String(),
  linkUrl: Type.String(),
  disclosure: Type.String({
    description: 'Text shown with the sponsor, e.g. "Sponsored by …; not an endorsement"',
  }),
  updatedAt: Type.String({ format: 'date-time' }),
});

const SponsorBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    logoUrl: HttpUrl,
    linkUrl: HttpUrl,
    disclosure: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' }),
  },
  { additionalProperties: false },
);

export const sponsorRoutes: FastifyPluginAsyncTypebox<{ sponsors: SponsorService }> = async (
  app,
  { sponsors },
) => {
  app.get(
    '/api/events/by-slug/:slug/sponsor',
    {
      schema: {
        tags: ['Markets'],
        summary: "A market's sponsor, if any",
        description:
          'Always `{"sponsor": {...}}` or `{"sponsor": null}` when the market has no sponsor. Unknown slug: 404.',
        params: Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          200: Type.Object({ sponsor: Type.Union([Sponsor, Type.Null()]) }),
          ...errors(404, 429),
        },
      },
    },
    async (request) => sponsors.forEvent(request.params.slug),
  );

  app.put(
    '/api/admin/events/:id/sponsor',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags: ['Admin'],
        security,
        summary: "Set or replace an event's sponsor",
        description:
          'Logo and link must be http(s) URLs; the disclosure text is required. Unknown event: 404.',
        params: IdParams,
        body: SponsorBody,
        response: { 200: Type.Object({ sponsor: Sponsor }), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => sponsors.set(Number(request.params.id), request.body),
  );

  app.delete(
    '/api/admin/events/:id/sponsor',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags: ['Admin'],
        security,
        summary: "Remove an event's sponsor",
        description: 'Unknown event, or an event without a sponsor: 404.',
        params: IdParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await sponsors.remove(Number(request.params.id));
      return reply.status(204).send(null);
    },
  );
};

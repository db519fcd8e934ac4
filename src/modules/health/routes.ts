import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Database } from '../../platform/db/database.js';

const Status = Type.Object({ status: Type.String(), database: Type.Optional(Type.String()) });

export const healthRoutes: FastifyPluginAsyncTypebox<{ database: Database; closing: () => boolean }> = async (
  app,
  { database, closing },
) => {
  app.get(
    '/healthz',
    // Probes and monitoring are never rate limited: a busy address must not look like a dead instance.
    {
      config: { rateLimit: false },
      schema: { tags: ['Health'], summary: 'The process is up', response: { 200: Status } },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      config: { rateLimit: false },
      schema: {
        tags: ['Health'],
        summary: 'The database answers and the server is not shutting down',
        response: { 200: Status, 503: Status },
      },
    },
    async (_request, reply) => {
      if (closing()) return reply.status(503).header('retry-after', 1).send({ status: 'closing' });
      if (await database.ping()) return { status: 'ready', database: database.kind };
      return reply
        .status(503)
        .header('retry-after', 1)
        .send({ status: 'unavailable', database: database.kind });
    },
  );
};

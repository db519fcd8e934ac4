import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Database } from '../../platform/db/database.js';

const Status = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('ready'), Type.Literal('unavailable')]),
  database: Type.Optional(Type.String({ description: '`postgres` or `pglite`' })),
  reason: Type.Optional(
    Type.Union(
      [
        Type.Literal('unavailable'),
        Type.Literal('read_only'),
        Type.Literal('disk_full'),
        Type.Literal('overloaded'),
        Type.Literal('shutting_down'),
      ],
      {
        description:
          'Why the instance is not ready: the database out of reach (`unavailable`), taking no writes (`read_only`: ' +
          'read-only or a standby), out of disk space (`disk_full`) or of memory or connections (`overloaded`), ' +
          'or this instance closing (`shutting_down`)',
      },
    ),
  ),
});

const READY_DESCRIPTION = `200 when this instance can take orders: the database answers and takes writes. 503 otherwise,
with the reason: the database out of reach, read-only or a standby (a read-only primary is not ready), out of disk
space or of memory or connections (seen in the last half second), or the instance shutting down. Never rate limited.`;

export interface HealthOptions {
  database: Database;
  /** True once the instance has begun to shut down. */
  closing: () => boolean;
}

export const healthRoutes: FastifyPluginAsyncTypebox<HealthOptions> = async (app, { database, closing }) => {
  app.get(
    '/healthz',
    // Probes and monitoring are never rate limited: a busy address must not look like a dead instance.
    {
      config: { rateLimit: false },
      schema: { tags: ['Health'], summary: 'The process is up', response: { 200: Status } },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      config: { rateLimit: false },
      schema: {
        tags: ['Health'],
        summary: 'The instance can take orders',
        description: READY_DESCRIPTION,
        response: { 200: Status, 503: Status },
      },
    },
    async (_request, reply) => {
      const reason = closing() ? 'shutting_down' : await database.check();
      if (reason === null) return { status: 'ready' as const, database: database.kind };
      return reply
        .status(503)
        .header('retry-after', 1)
        .send({ status: 'unavailable', database: database.kind, reason });
    },
  );
};

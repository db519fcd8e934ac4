import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../platform/auth.js';
import { errors, IdString, PageQuery } from '../../platform/http.js';
import type { NotificationsService } from './service.js';

export const Notification = Type.Object({
  id: IdString,
  type: Type.String({ description: 'Machine type, e.g. order.filled, market.settled, social.follow' }),
  title: Type.String(),
  body: Type.String({ description: 'The event in human words' }),
  data: Type.Record(Type.String(), Type.Unknown()),
  read: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});

const MarkBody = Type.Union(
  [
    Type.Object({ markAllRead: Type.Literal(true) }, { additionalProperties: false }),
    Type.Object({ id: IdString }, { additionalProperties: false }),
  ],
  { description: 'Either {"markAllRead": true} or {"id": "<notification id>"}' },
);

const tags = ['Account'];
const security = [{ bearerAuth: [] }];

export const notificationsRoutes: FastifyPluginAsyncTypebox<{ notifications: NotificationsService }> = async (
  app,
  { notifications },
) => {
  app.get(
    '/api/me/notifications',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'The notification feed, newest first, with the unread count',
        querystring: Type.Object({ ...PageQuery, unread: Type.Optional(Type.Boolean()) }),
        response: {
          200: Type.Object({
            data: Type.Array(Notification),
            nextCursor: Type.Union([Type.String(), Type.Null()]),
            unreadCount: Type.Integer(),
          }),
          ...errors(400, 401),
        },
      },
    },
    async (request) =>
      notifications.feed(currentUser(request).userId, {
        limit: request.query.limit ?? 50,
        cursor: request.query.cursor,
        unreadOnly: request.query.unread ?? false,
      }),
  );

  app.post(
    '/api/me/notifications',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Mark one notification or all of them read',
        body: MarkBody,
        response: {
          200: Type.Object({ marked: Type.Integer(), unreadCount: Type.Integer() }),
          ...errors(400, 401, 404),
        },
      },
    },
    async (request) => notifications.markRead(currentUser(request).userId, request.body),
  );
};

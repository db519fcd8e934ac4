import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../../platform/auth.js';
import { errors, Page, PageQuery } from '../../../platform/http.js';
import { FollowBody, FollowListItem, FollowParams } from './schemas.js';
import type { FollowService } from './service.js';

const tags = ['Account'];
const security = [{ bearerAuth: [] }];

export const followRoutes: FastifyPluginAsyncTypebox<{ follows: FollowService }> = async (
  app,
  { follows },
) => {
  app.post(
    '/api/follow/:userId',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Follow a user',
        description:
          '201 when you start following (the user gets a `social.follow` notification unless they turned ' +
          'social notifications off); 200 when you already follow them. Yourself: 400. Unknown user: 404.',
        params: FollowParams,
        response: { 200: FollowBody, 201: FollowBody, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { created, follow } = await follows.follow(
        currentUser(request).userId,
        Number(request.params.userId),
      );
      return reply.status(created ? 201 : 200).send(follow);
    },
  );

  app.delete(
    '/api/follow/:userId',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Unfollow a user',
        description: '204 whether or not you followed them. Yourself: 400. Unknown user: 404.',
        params: FollowParams,
        response: { 204: Type.Null(), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await follows.unfollow(currentUser(request).userId, Number(request.params.userId));
      return reply.status(204).send(null);
    },
  );

  for (const direction of ['following', 'followers'] as const) {
    app.get(
      `/api/me/${direction}`,
      {
        onRequest: app.authenticate,
        schema: {
          tags,
          security,
          summary: direction === 'following' ? 'Users you follow' : 'Users who follow you',
          description: 'Newest follow first.',
          querystring: Type.Object(PageQuery),
          response: { 200: Page(FollowListItem), ...errors(400, 401) },
        },
      },
      async (request) =>
        follows.list(currentUser(request).userId, direction, {
          limit: request.query.limit ?? 50,
          cursor: request.query.cursor,
        }),
    );
  }
};

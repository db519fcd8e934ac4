import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentUser } from '../../../platform/auth.js';
import { errors, IdParams } from '../../../platform/http.js';
import {
  AttachNewsBody,
  NewsBody,
  NewsItem,
  NewsItemParams,
  NewsSources,
  NewsSourcesBody,
} from './schemas.js';
import { MAX_ADMIN_ITEMS, MAX_NEWS_ITEMS, type NewsService } from './service.js';

const security = [{ bearerAuth: [] }];
const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 200 }) });

export const newsRoutes: FastifyPluginAsyncTypebox<{ news: NewsService }> = async (app, { news }) => {
  app.get(
    '/api/events/by-slug/:slug/news',
    {
      schema: {
        tags: ['Markets'],
        summary: 'Recent news about a market, with an AI summary',
        description:
          `Up to ${MAX_NEWS_ITEMS} items, newest first: every item an admin attached, then the newest items ` +
          "from the event's RSS/Atom feeds and from the search news API (queried with the event's search " +
          'query, by default its title), one item per URL. Provider answers are cached in each instance for ' +
          '`NEWS_CACHE_SECONDS` (600 s by default). `summary` is an AI summary of exactly these items when an ' +
          'AI provider is configured and the `newsSummary` flag is on, stored per set of items so it is ' +
          'written once; otherwise null. A slow or failing provider never fails the request: the answer holds ' +
          'what is available and `providers` says which provider failed and how. Unknown slug: 404.',
        params: SlugParams,
        response: { 200: NewsBody, ...errors(404, 429) },
      },
    },
    async (request) => news.forEvent(request.params.slug),
  );

  app.get(
    '/api/admin/events/:id/news-sources',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags: ['Admin'],
        security,
        summary: "An event's news feeds and search query",
        params: IdParams,
        response: { 200: NewsSources, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => news.sources(Number(request.params.id)),
  );

  app.put(
    '/api/admin/events/:id/news-sources',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags: ['Admin'],
        security,
        summary: "Set an event's news feeds and search query",
        description:
          'Replaces the list of RSS 2.0 / Atom feed URLs (http or https, duplicates dropped) and the query ' +
          'sent to the search news API. Unknown event: 404.',
        params: IdParams,
        body: NewsSourcesBody,
        response: { 200: NewsSources, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => news.setSources(Number(request.params.id), request.body),
  );

  app.post(
    '/api/admin/events/:id/news',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags: ['Admin'],
        security,
        summary: 'Attach a news item to an event',
        description:
          `Attached items always appear in the event's news. At most ${MAX_ADMIN_ITEMS} per event (409 ` +
          'TOO_MANY_NEWS_ITEMS); one per URL (409 NEWS_ITEM_EXISTS). Unknown event: 404.',
        params: IdParams,
        body: AttachNewsBody,
        response: { 201: NewsItem, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const item = await news.attach(Number(request.params.id), currentUser(request).userId, request.body);
      return reply.status(201).send(item);
    },
  );

  app.delete(
    '/api/admin/events/:id/news/:itemId',
    {
      onRequest: app.authorizeAdmin,
      schema: {
        tags: ['Admin'],
        security,
        summary: 'Remove an attached news item',
        params: NewsItemParams,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await news.detach(Number(request.params.id), Number(request.params.itemId));
      return reply.status(204).send(null);
    },
  );
};

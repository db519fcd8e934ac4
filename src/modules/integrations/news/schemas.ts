import { Type } from '@sinclair/typebox';
import { IdString } from '../../../platform/http.js';
import { HttpUrl, ProviderReport } from '../schemas.js';
import { MAX_ADMIN_ITEMS, MAX_FEEDS, MAX_NEWS_ITEMS } from './service.js';

export const NewsItem = Type.Object({
  id: Type.Optional(IdString),
  title: Type.String(),
  source: Type.String(),
  url: Type.String(),
  publishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  origin: Type.Union([Type.Literal('feed'), Type.Literal('api'), Type.Literal('admin')], {
    description: '`admin` items carry the `id` that removes them',
  }),
});

export const NewsBody = Type.Object({
  items: Type.Array(NewsItem, { maxItems: MAX_NEWS_ITEMS }),
  summary: Type.Union([Type.String(), Type.Null()], {
    description: 'AI summary of exactly these items, or null without an AI provider or when it failed',
  }),
  providers: Type.Array(ProviderReport),
  fetchedAt: Type.String({ format: 'date-time', description: 'When this answer was put together' }),
});

export const NewsSources = Type.Object({
  eventId: IdString,
  feeds: Type.Array(Type.String()),
  query: Type.Union([Type.String(), Type.Null()], {
    description: 'Search-API query; null means the event title',
  }),
  updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const NewsSourcesBody = Type.Object(
  {
    feeds: Type.Array(HttpUrl, {
      maxItems: MAX_FEEDS,
      description: `RSS 2.0 or Atom feed URLs, at most ${MAX_FEEDS}`,
    }),
    query: Type.Optional(
      Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
        description: 'Search-API query (absent, null or blank: the event title)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AttachNewsBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 300, pattern: '\\S' }),
    url: HttpUrl,
    source: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    publishedAt: Type.Optional(Type.String({ format: 'date-time', description: 'Default: now' })),
  },
  { additionalProperties: false, description: `At most ${MAX_ADMIN_ITEMS} attached items per event` },
);

export const NewsItemParams = Type.Object({ id: IdString, itemId: IdString });

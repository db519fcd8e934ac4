import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { TSchema } from '@sinclair/typebox';
import { errors } from '../platform/http.js';
import { COMPONENT_SCHEMAS, useComponents } from './components.js';
import { errorCodes } from './error-codes.js';
import { derivedOperationId, OPERATION_IDS } from './operations.js';
import { webhooksSection } from './webhooks.js';

/**
 * The OpenAPI document as a contract. Routes declare their own schemas, statuses and descriptions; what every
 * operation shares is added here, in one place: the operationId, the statuses any request can meet (429 and 503
 * everywhere; 401 and 403 where credentials are needed; 400, 404, 413 and 415 where there is input), the rate-limit
 * headers, true content types, named component schemas and the webhooks.
 */

type Json = Record<string, unknown>;

const TAGS: { name: string; description: string }[] = [
  { name: 'Markets', description: 'Events, their options, order books, prices and the leaderboard. Public.' },
  { name: 'Trading', description: 'Market trades, limit orders, cancels, executions and positions.' },
  {
    name: 'Market makers',
    description:
      'Batches of orders, cancel by ids and cancel-all, amend, and the dead man’s switch (cancel on silence). Orders ' +
      'placed draw on the per-user order budget (Order-RateLimit-* headers); cancels never do.',
  },
  {
    name: 'Market data',
    description:
      'Candles, tickers and the public tape of every option (public, cached), and your fills, settlements and ' +
      'portfolio history.',
  },
  {
    name: 'Account',
    description: 'Registration, sessions, API keys, notifications, preferences and your data.',
  },
  { name: 'Social', description: 'Public profiles, posts, comments, reports and market suggestions.' },
  { name: 'Competitions', description: 'Head-to-head challenges and tournaments.' },
  { name: 'Copy trading', description: 'Following other traders and mirroring their orders.' },
  {
    name: 'Webhooks',
    description: 'Signed HTTP callbacks (Standard Webhooks) for your orders, trades and markets.',
  },
  { name: 'Flags', description: 'The public feature-flag map.' },
  { name: 'Cricket', description: 'Live cricket scores from the configured provider.' },
  { name: 'Payments', description: 'Payment gateways, deposits and withdrawals (off before launch).' },
  {
    name: 'Admin',
    description: 'Operator endpoints (role admin): the catalogue, resolution, moderation, flags.',
  },
  { name: 'Health', description: 'Liveness and readiness probes.' },
];

const RATE_LIMIT_HEADERS: Record<string, Json> = {
  'RateLimit-Limit': {
    description: 'Requests allowed in the window (per user, or per address when unauthenticated)',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window resets',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'Order-RateLimit-Limit': {
    description: 'Orders you may place in the window (ORDER_RATE_LIMIT per ORDER_RATE_WINDOW_MS, per user)',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'Order-RateLimit-Remaining': {
    description: 'Orders left in the current window',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'Order-RateLimit-Reset': {
    description: 'Seconds until the order window resets',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'Idempotent-Replayed': {
    description: '`true` when this answer is the stored result of an earlier request with the same key',
    schema: { type: 'string', enum: ['true'] },
  },
};

/** Bodies and answers that are not JSON; everything else, and every error, is application/json. */
const MEDIA: Record<string, { requestBody?: Json; success?: { type: string; schema: Json } }> = {
  'POST /api/me/avatar': {
    requestBody: {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['file'],
            properties: {
              file: {
                type: 'string',
                contentMediaType: 'application/octet-stream',
                description: 'The image',
              },
            },
          },
        },
      },
    },
  },
  'GET /api/avatars/{file}': {
    success: { type: 'image/webp', schema: { type: 'string', contentMediaType: 'image/webp' } },
  },
  'GET /api/me/trades/export': {
    success: {
      type: 'text/csv',
      schema: { type: 'string', description: 'RFC 4180 CSV, a header row first' },
    },
  },
};

/**
 * Operations that place orders, amend them or convert: a retry with the same key answers the first result with
 * Idempotent-Replayed; what that answer is, per operation.
 */
const REPLAYS: Record<string, string> = {
  placeTrade:
    'The order as placed; a retry with the same Idempotency-Key (or clientOrderId) answers the first result ' +
    'again, 201 with Idempotent-Replayed: true, and places nothing',
  placeLimitOrder:
    'The order as placed; a retry with the same Idempotency-Key (or clientOrderId) answers the first result ' +
    'again, 201 with Idempotent-Replayed: true, and places nothing',
  convertShares:
    'The conversion as made; a retry with the same Idempotency-Key answers the first result again, 201 with ' +
    'Idempotent-Replayed: true, and converts nothing',
  placeLimitOrderBatch:
    'One result per order; a retry with the same Idempotency-Key answers each placed order’s first result again ' +
    '(Idempotent-Replayed: true when every order was replayed) and places only those not placed before',
  amendLimitOrder:
    'The order as amended; a retry with the same Idempotency-Key answers the first result again, 200 with ' +
    'Idempotent-Replayed: true, and changes nothing',
};
const IDEMPOTENT = new Set(Object.keys(REPLAYS));

/** Operations that place orders: they draw on the order budget, and say how much is left of it. */
const ORDER_BUDGET = new Set(['placeTrade', 'placeLimitOrder', 'placeLimitOrderBatch', 'amendLimitOrder']);

const openapiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function operationIdOf(method: string, path: string): string {
  return OPERATION_IDS[`${method} ${path}`] ?? derivedOperationId(method, path);
}

/**
 * The statuses any call of this route can meet, beyond those the route declares itself. Any request but a GET may
 * carry a body, which is parsed (and so may be malformed, too large or of another type) even where none is expected.
 */
function commonStatuses(method: string, schema: Json, authenticated: boolean, limited: boolean): number[] {
  const statuses = limited ? [429, 503] : [503];
  const hasBody = method !== 'GET' && method !== 'HEAD';
  if (hasBody || schema.querystring || schema.params || schema.headers) statuses.push(400);
  if (authenticated) statuses.push(401, 403);
  if (schema.params) statuses.push(404);
  if (hasBody) statuses.push(413, 415);
  return statuses;
}

const transform: NonNullable<FastifyDynamicSwaggerOptions['transform']> = ({ schema, url, route }) => {
  if (!schema || schema.hide) return { schema, url };
  const method = (Array.isArray(route.method) ? route.method[0] : route.method) as string;
  const path = openapiPath(url);
  const source = schema as unknown as Json;
  const authenticated = Array.isArray(source.security) && source.security.length > 0;
  const declared = (source.response ?? {}) as Record<string, TSchema>;
  // A route that says `config: { rateLimit: false }` (the health probes) is not counted: no 429, no RateLimit headers.
  const limited = (route.config as { rateLimit?: unknown } | undefined)?.rateLimit !== false;
  if (!limited) UNLIMITED.add(operationIdOf(method, path));
  const added = errors(
    ...commonStatuses(method, source, authenticated, limited).filter((s) => declared[s] === undefined),
  );
  const { produces: _produces, ...rest } = source;
  const out: Json = {
    ...rest,
    operationId: operationIdOf(method, path),
    security: authenticated ? source.security : [],
    response: { ...declared, ...added },
  };
  return { schema: out as typeof schema, url };
};

/** The operations the rate limit does not count (filled in by `transform`, read when the document is finished). */
const UNLIMITED = new Set<string>();

function withHeaders(operationId: string, status: string, response: Json): Json {
  const headers: Json = UNLIMITED.has(operationId)
    ? {}
    : {
        'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
        'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
        'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
      };
  if (status === '429' || status === '503')
    headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
  if (ORDER_BUDGET.has(operationId) && (status.startsWith('2') || status === '429')) {
    for (const name of ['Limit', 'Remaining', 'Reset'])
      headers[`Order-RateLimit-${name}`] =
        status === '429'
          ? {
              description: 'Present when the order budget refused the request (ORDER_RATE_LIMITED)',
              schema: { type: 'integer', minimum: 0 },
            }
          : { $ref: `#/components/headers/Order-RateLimit-${name}` };
  }
  if (IDEMPOTENT.has(operationId) && status.startsWith('2')) {
    headers['Idempotent-Replayed'] = { $ref: '#/components/headers/Idempotent-Replayed' };
  }
  return Object.keys(headers).length > 0 ? { ...response, headers } : response;
}

function successDescription(operationId: string): string {
  return REPLAYS[operationId] ?? 'Success';
}

/** Errors are JSON whatever the route produces; its success answers have their true media type. */
function withMedia(key: string, status: string, response: Json): Json {
  const media = MEDIA[key]?.success;
  if (status.startsWith('2') && media) {
    return { ...response, content: { [media.type]: { schema: media.schema } } };
  }
  if (!status.startsWith('2') && response.content) {
    const content = response.content as Record<string, Json>;
    const json = content['application/json'] ?? Object.values(content)[0];
    return { ...response, content: { 'application/json': json } };
  }
  return response;
}

const ERROR_REF = '#/components/schemas/ApiError';

/** An error answer's body: the error shape, with `code` one of the codes this operation answers this status with. */
function withCodes(operationId: string, method: string, status: string, response: Json): Json {
  const media = (response.content as Record<string, Json> | undefined)?.['application/json'];
  if (!media || (media.schema as Json | undefined)?.$ref !== ERROR_REF) return response;
  const codes = errorCodes(operationId, method, Number(status));
  if (codes.length === 0) return response;
  const schema = {
    allOf: [{ $ref: ERROR_REF }, { required: ['code'], properties: { code: { enum: codes } } }],
  };
  return { ...response, content: { 'application/json': { ...media, schema } } };
}

function finishOperation(method: string, path: string, operation: Json): Json {
  const key = `${method.toUpperCase()} ${path}`;
  const operationId = String(operation.operationId);
  const responses = (operation.responses ?? {}) as Record<string, Json>;
  const finished: Record<string, Json> = {};
  for (const [status, response] of Object.entries(responses)) {
    const described =
      response.description === 'Default Response' && status.startsWith('2')
        ? { ...response, description: successDescription(operationId) }
        : response;
    const typed = withCodes(operationId, method, status, withMedia(key, status, described));
    finished[status] = withHeaders(operationId, status, typed);
  }
  const requestBody = MEDIA[key]?.requestBody ?? operation.requestBody;
  return { ...operation, ...(requestBody ? { requestBody } : {}), responses: finished };
}

const transformObject: NonNullable<FastifyDynamicSwaggerOptions['transformObject']> = (documentObject) => {
  const document = (documentObject as { openapiObject: Json }).openapiObject;
  const paths = document.paths as Record<string, Record<string, Json>>;
  const finishedPaths: Record<string, Record<string, Json>> = {};
  const usedTags = new Set<string>();
  for (const [path, operations] of Object.entries(paths)) {
    finishedPaths[path] = {};
    for (const [method, operation] of Object.entries(operations)) {
      for (const tag of (operation.tags as string[] | undefined) ?? []) usedTags.add(tag);
      finishedPaths[path][method] = finishOperation(method, path, operation);
    }
  }
  const components = (document.components ?? {}) as Json;
  const tags = [
    ...TAGS.filter((tag) => usedTags.has(tag.name)),
    ...[...usedTags].filter((name) => !TAGS.some((tag) => tag.name === name)).map((name) => ({ name })),
  ];
  const finished = useComponents({
    ...document,
    tags,
    paths: finishedPaths,
    webhooks: webhooksSection(),
    components: { ...components, headers: RATE_LIMIT_HEADERS },
  });
  return finished as ReturnType<NonNullable<FastifyDynamicSwaggerOptions['transformObject']>>;
};

/**
 * `configured`: named schemas whose shape depends on the deployment's configuration (the batch request, whose
 * length is MAX_BATCH_ORDERS).
 */
export function swaggerOptions(
  publicUrl: string,
  configured: Record<string, unknown> = {},
): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Prediction-market exchange API',
        version: '1.0.0',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        description:
          'Trade YES/NO shares on the options of real-world events. Money is integer cents; prices are ' +
          'cents 1..99 per share (a YES price p is a NO price 100-p); ids are strings. Errors are ' +
          '`{error, code, details}`. Lists take `limit` (1..200, default 50) and `cursor` and return ' +
          '`{data, nextCursor}`. Every response (health probes aside) carries RateLimit-Limit/Remaining/Reset headers; a 429 and every 503 ' +
          'carry Retry-After. The live market-data stream (WebSocket, `/api/stream`) is described by the AsyncAPI ' +
          'document at `/api/asyncapi.json`.',
      },
      servers: [{ url: publicUrl, description: 'This deployment' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key or a session token' },
        },
        schemas: {
          ...COMPONENT_SCHEMAS,
          ...JSON.parse(JSON.stringify(configured)),
        } as unknown as Record<string, never>,
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    transform,
    transformObject,
  };
}

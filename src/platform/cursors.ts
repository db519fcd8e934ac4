import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import { ValidationError } from './errors.js';

/**
 * Cursors are bound to the list and the filter that made them. Every `nextCursor` a list answers with is sealed with
 * a tag of its route, its path parameters and its query (all but `cursor` and `limit`); a cursor sent back is
 * unsealed before the route reads it, and one sealed for another list or another filter is a 400 rather than a
 * silently wrong page. Lists are recognised by a `cursor` in their query schema; routes page as they always did.
 */

const TAG_LENGTH = 12;
const NEXT_CURSOR = /"nextCursor":"([A-Za-z0-9_-]+)"/g;

/** JSON with sorted keys: the same filter gives the same text whatever the order of its query. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function tagOf(request: FastifyRequest, cursor: string): string {
  const { cursor: _cursor, limit: _limit, ...filter } = (request.query ?? {}) as Record<string, unknown>;
  const scope = canonical([request.routeOptions.url, request.params ?? {}, filter, cursor]);
  return createHash('sha256').update(scope).digest('base64url').slice(0, TAG_LENGTH);
}

const unseal: preHandlerHookHandler = async (request) => {
  const query = request.query as { cursor?: string };
  if (query.cursor === undefined) return;
  const at = query.cursor.lastIndexOf('.');
  const inner = query.cursor.slice(0, at);
  if (at < 0 || query.cursor.slice(at + 1) !== tagOf(request, inner)) {
    throw new ValidationError('This cursor belongs to another list or to other filters', [
      { field: 'query.cursor', message: 'is not a cursor of this list with these filters' },
    ]);
  }
  query.cursor = inner;
};

const seal: onSendHookHandler = async (request, reply, payload) => {
  if (typeof payload !== 'string' || reply.statusCode !== 200 || !payload.includes('"nextCursor":"')) {
    return payload;
  }
  return payload.replace(NEXT_CURSOR, (_match, cursor: string) => {
    return `"nextCursor":"${cursor}.${tagOf(request, cursor)}"`;
  });
};

const asList = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

/** Seals the cursors of every list registered after this call. */
export function bindCursors(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const query = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
    if (!query?.properties?.cursor) return;
    route.preHandler = [unseal, ...asList(route.preHandler)];
    route.onSend = [...asList(route.onSend), seal];
  });
}

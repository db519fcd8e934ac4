import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { ValidationError } from './errors.js';

/** Shared wire-format pieces: ids are strings, times ISO 8601, lists are cursor-paginated. */

export const IdString = Type.String({ pattern: '^[1-9][0-9]{0,15}$', description: 'Numeric id as a string' });
export const IdParams = Type.Object({ id: IdString });

export const ErrorBody = Type.Object(
  {
    error: Type.String(),
    code: Type.String(),
    details: Type.Optional(Type.Unknown()),
  },
  {
    $id: 'ApiError',
    description:
      'Every error: a human message, a machine code and optional details. Each operation lists the codes it ' +
      'can answer with for each status.',
  },
);

const errorDescriptions: Record<number, string> = {
  400: 'Validation failed (VALIDATION_FAILED, MALFORMED_BODY, WEAK_PASSWORD, LINK_INVALID)',
  401: 'Missing or invalid credentials (UNAUTHENTICATED)',
  402: 'Not enough cash (INSUFFICIENT_FUNDS)',
  403: 'Not allowed (FORBIDDEN, ACCOUNT_SUSPENDED, EMAIL_NOT_VERIFIED)',
  404: 'Not found (NOT_FOUND)',
  409: 'Conflict with the current state (the code names it)',
  410: 'No longer kept (SEQ_OUTSIDE_WINDOW)',
  413: 'Body too large (PAYLOAD_TOO_LARGE)',
  415: 'Unsupported media type (UNSUPPORTED_MEDIA_TYPE)',
  429: 'Rate limited (RATE_LIMITED); see Retry-After',
  503: 'Unavailable now; retry after Retry-After (DATABASE_UNAVAILABLE, DATABASE_READ_ONLY, DATABASE_DISK_FULL, DATABASE_OVERLOADED, OPTION_BUSY, ORDER_QUEUE_FULL, MAINTENANCE, SHUTTING_DOWN, FEATURE_DISABLED, PROVIDER_NOT_CONFIGURED)',
};

/** Error responses for a route's OpenAPI entry. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const status of statuses) {
    out[status] = Type.Ref(ErrorBody, { description: errorDescriptions[status] ?? 'Error' });
  }
  return out;
}

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
};

export function Page<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), nextCursor: Type.Union([Type.String(), Type.Null()]) });
}

export type PageOf<T> = { data: T[]; nextCursor: string | null };

/** Opaque cursor carrying the sort key of the last row of a page. */
export function encodeCursor(values: (string | number)[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

function isIntegerKey(value: unknown): value is string | number {
  return typeof value === 'number'
    ? Number.isSafeInteger(value)
    : typeof value === 'string' && /^-?\d{1,15}$/.test(value);
}

export function decodeCursor(cursor: string | undefined, arity: number): (string | number)[] | null {
  if (cursor === undefined) return null;
  try {
    const values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    // Every cursor carries integer sort keys (ids, offsets); anything else would reach SQL as NaN or text.
    if (Array.isArray(values) && values.length === arity && values.every(isIntegerKey)) {
      return values;
    }
  } catch {
    // fall through to the validation error below
  }
  throw new ValidationError('Invalid cursor', [
    { field: 'query.cursor', message: 'is not a cursor from this API' },
  ]);
}

/** Takes limit+1 rows and turns them into a page with the cursor of its last row. */
export function toPage<Row, Item>(
  rows: Row[],
  limit: number,
  toItem: (row: Row) => Item,
  cursorOf: (row: Row) => (string | number)[],
): PageOf<Item> {
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(toItem),
    nextCursor: more && last !== undefined ? encodeCursor(cursorOf(last)) : null,
  };
}

/**
 * Whether an answer may carry a secret or a person's own data, and so must never be stored by a browser or a proxy
 * (`Cache-Control: no-store`): everything under /api/auth/ (session tokens) and /api/me/ (API keys, webhook secrets,
 * sessions), the operators' /api/admin/, and every answer to a request that carries credentials.
 */
export function carriesSecrets(request: FastifyRequest): boolean {
  const path = request.url;
  return (
    request.headers.authorization !== undefined ||
    path.startsWith('/api/auth/') ||
    path.startsWith('/api/me/') ||
    path.startsWith('/api/admin/')
  );
}

export const iso = (date: Date): string => date.toISOString();
export const isoOrNull = (date: Date | null): string | null => (date ? date.toISOString() : null);

export type { Static };

import type { Kysely, Transaction } from 'kysely';
import type { DB } from './schema.js';

/** Either the database or an open transaction: repositories accept both. */
export type Queryable = Kysely<DB> | Transaction<DB>;
export type Tx = Transaction<DB>;

/** True when a write failed on a unique index (Postgres 23505). */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string } | null;
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/**
 * Why the database cannot serve a statement now, when the reason is the database's and not the request's:
 * - `unavailable`: out of reach or would not wait (connection lost, refused or timed out, the server shutting down
 *   or starting up, a lock or statement timeout, a transaction ended for idling);
 * - `read_only`: it takes no writes (`default_transaction_read_only`, or a hot standby not yet promoted, including
 *   a query cancelled by a conflict with recovery);
 * - `disk_full`: it has run out of disk space (53100);
 * - `overloaded`: it has run out of memory, connections or another resource (the rest of class 53).
 */
export type DatabaseCondition = 'unavailable' | 'read_only' | 'disk_full' | 'overloaded';

const UNAVAILABLE_CODES = new Set([
  '25P03',
  '55P03',
  '57014',
  '57P01',
  '57P02',
  '57P03',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

const UNAVAILABLE_MESSAGE =
  /Connection terminated|not queryable|timeout exceeded when trying to connect|no answer from the database/i;

/** The condition a failed statement reveals, or null when the failure is the request's own (or a bug). */
export function databaseCondition(error: unknown): DatabaseCondition | null {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  if (code === '25006' || (code === '40001' && /conflict with recovery/i.test(message))) return 'read_only';
  if (code === '53100') return 'disk_full';
  if (code.startsWith('53')) return 'overloaded';
  if (code.startsWith('08') || UNAVAILABLE_CODES.has(code) || UNAVAILABLE_MESSAGE.test(message))
    return 'unavailable';
  return null;
}

/**
 * True when a statement failed for a reason of the database's, not the request's (any `DatabaseCondition`):
 * retrying at once cannot help, and the request is answered 503 with `Retry-After`.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return databaseCondition(error) !== null;
}

/** True when a statement gave up waiting for a lock (`lock_timeout`, Postgres 55P03). */
export function isLockTimeout(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === '55P03';
}

/**
 * A statement that waits on nothing but row locks, cancelled past `statement_timeout` (57014), as the lock timeout
 * it is: with several transactions queued on one row, each waits up to `lock_timeout` for the row's tuple lock and
 * again for the holder's, and so may reach the statement's bound first. Any other error is returned as it is.
 */
export function asLockTimeout(error: unknown): unknown {
  if ((error as { code?: string } | null)?.code !== '57014') return error;
  return Object.assign(new Error('gave up waiting for row locks (statement_timeout)', { cause: error }), {
    code: '55P03',
  });
}

/**
 * True when PostgreSQL ended the transaction to break a deadlock (40P01) or a serialization failure (40001): nothing
 * of it was written, and the same work may simply be tried again.
 */
export function isRetryable(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === '40P01' || code === '40001';
}

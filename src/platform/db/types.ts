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
 * True when a statement failed because the database is out of reach or would not wait (connection lost or
 * refused, the server shutting down, a lock or statement timeout): retrying at once cannot help.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  const code = e?.code ?? '';
  return (
    code.startsWith('08') ||
    [
      '25P03',
      '55P03',
      '57014',
      '57P01',
      '57P02',
      '57P03',
      '53300',
      'ECONNREFUSED',
      'ECONNRESET',
      'EPIPE',
      'ETIMEDOUT',
    ].includes(code) ||
    /Connection terminated|not queryable|timeout exceeded when trying to connect|no answer from the database/i.test(
      e?.message ?? '',
    )
  );
}

/** True when a statement gave up waiting for a lock (`lock_timeout`, Postgres 55P03). */
export function isLockTimeout(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === '55P03';
}

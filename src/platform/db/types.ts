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

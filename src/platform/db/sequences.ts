import { type RawBuilder, sql } from 'kysely';
import type { DB } from './schema.js';

/**
 * The next value of a table's `id` identity sequence, for statements that take many ids at once. The sequence is
 * looked up once per statement: `nextval(pg_get_serial_sequence(…))` would look it up in the catalogue for every row
 * (about 5 µs each, ten times the `nextval` itself).
 */
export function nextId(table: keyof DB & string): RawBuilder<number> {
  return sql<number>`nextval((SELECT pg_get_serial_sequence(${sql.lit(table)}, 'id')::regclass))`;
}

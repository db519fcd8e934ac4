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

/** `count` ids from a table's `id` sequence as one array, in order (NULL when `count` is 0). */
export function takenIds(table: keyof DB & string, count: number): RawBuilder<(number | string)[] | null> {
  return sql`(SELECT array_agg(id ORDER BY id) FROM (
    SELECT ${nextId(table)} AS id FROM generate_series(1, ${count}::int)) taken)`;
}

import { sql } from 'kysely';
import type { Database } from '../../src/platform/db/database.js';

/** Columns that legitimately change when a request merely uses a credential. */
const VOLATILE_COLUMNS: Record<string, string[]> = {
  api_keys: ['last_used_at', 'last_used_ip'],
  sessions: ['last_used_at', 'last_used_ip'],
};

/**
 * A fingerprint of every table: row count and a hash of all rows. Two equal snapshots mean a request changed
 * nothing that is stored.
 */
export async function snapshot(database: Database): Promise<Record<string, string>> {
  const tables = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
    ORDER BY table_name`.execute(database.db);
  const out: Record<string, string> = {};
  for (const { table_name: table } of tables.rows) {
    const columns = await sql<{ column_name: string }>`
      SELECT column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ${table}
      ORDER BY ordinal_position`.execute(database.db);
    const kept = columns.rows
      .map((row) => row.column_name)
      .filter((column) => !(VOLATILE_COLUMNS[table] ?? []).includes(column));
    const list = sql.join(kept.map((column) => sql.ref(column)));
    const result = await sql<{ rows: string; digest: string | null }>`
      SELECT count(*)::text AS rows, md5(string_agg(r::text, '|' ORDER BY r::text)) AS digest
      FROM (SELECT ${list} FROM ${sql.table(table)}) AS r`.execute(database.db);
    const row = result.rows[0];
    out[table] = `${row?.rows ?? 0}:${row?.digest ?? ''}`;
  }
  return out;
}

/** The tables whose fingerprint differs between two snapshots. */
export function changedTables(before: Record<string, string>, after: Record<string, string>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => before[name] !== after[name]).sort();
}

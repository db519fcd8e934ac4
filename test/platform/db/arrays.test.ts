import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { numberArray, textArray, timestampArray } from '../../../src/platform/db/arrays.js';
import { createTestDatabase, type TestDatabase } from '../../support/app.js';

/**
 * The array literals the hot statements send, read back by the database (PGlite, or PostgreSQL) one element per
 * row, so that no client's array parser is in between.
 */
let test: TestDatabase;
beforeAll(async () => {
  test = await createTestDatabase();
});
afterAll(async () => {
  await test.drop();
});

/** The elements of an array literal as the database reads them, each as text (times in UTC), or NULL. */
async function elements(literal: string, type: 'text' | 'timestamptz' | 'bigint') {
  const value =
    type === 'timestamptz'
      ? sql`to_char(t.v AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      : sql`t.v::text`;
  const { rows } = await sql<{ v: string | null }>`
    SELECT ${value} AS v FROM unnest(${literal}::${sql.raw(type)}[]) WITH ORDINALITY AS t(v, ord)
    ORDER BY t.ord`.execute(test.database.db);
  return rows.map((row) => row.v);
}

describe('array literals', () => {
  it('read back as the same text, whatever the characters', async () => {
    const values = [
      'plain',
      '',
      'NULL',
      'null',
      'with "quotes"',
      'back\\slash \\" both',
      'a,b',
      '{braces}',
      '  spaces  ',
      'new\nline\ttab',
      'ünïcødé ✓',
      '{"json": "value", "n": [1, 2]}',
      null,
    ];
    expect(await elements(textArray(values), 'text')).toEqual(values);
    expect(await elements(textArray([]), 'text')).toEqual([]);
  });

  it('read back as the same instants, and NULL as NULL', async () => {
    const values = [
      new Date('2026-11-27T02:30:00.123Z'),
      null,
      new Date(0),
      new Date('1999-12-31T23:59:59.999Z'),
    ];
    expect(await elements(timestampArray(values), 'timestamptz')).toEqual(
      values.map((value) => value?.toISOString() ?? null),
    );
  });

  it('read back as the same integers, and refuse what is not one', async () => {
    expect(await elements(numberArray([1, -2, null, 2 ** 53 - 1]), 'bigint')).toEqual([
      '1',
      '-2',
      null,
      String(2 ** 53 - 1),
    ]);
    expect(() => numberArray([1.5])).toThrow(TypeError);
  });
});

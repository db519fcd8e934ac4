/**
 * PostgreSQL array literals of numbers, booleans, text and times, written in one pass. The hot statements take one
 * array per column; handed a JavaScript array, the driver turns every element into a string, escapes and quotes it,
 * which is a good part of the order pipeline's cost per order. Passed as text, the statement's cast (`::bigint[]`,
 * `::int[]`, `::boolean[]`, `::text[]`, `::timestamptz[]`) reads them as the same arrays.
 */
function arrayLiteral<T>(values: readonly (T | null | undefined)[], element: (value: T) => string): string {
  let text = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i > 0) text += ',';
    text += value === null || value === undefined ? 'NULL' : element(value);
  }
  return `${text}}`;
}

export function numberArray(values: readonly (number | null)[]): string {
  return arrayLiteral(values, (value) => {
    if (!Number.isSafeInteger(value)) throw new TypeError(`not an integer: ${value}`);
    return String(value);
  });
}

export function booleanArray(values: readonly boolean[]): string {
  return arrayLiteral(values, (value) => (value ? 't' : 'f'));
}

/** Needs a backslash before it inside a quoted array element. */
const ESCAPED = /[\\"]/g;

/** Text: every element quoted (so that `NULL`, commas, braces and spaces stay text), `"` and `\` escaped. */
export function textArray(values: readonly (string | null)[]): string {
  return arrayLiteral(values, (value) => `"${value.replace(ESCAPED, '\\$&')}"`);
}

/** Times, as ISO 8601 in UTC: what `::timestamptz[]` reads back as the same instants. */
export function timestampArray(values: readonly (Date | null)[]): string {
  return arrayLiteral(values, (value) => `"${value.toISOString()}"`);
}

/**
 * PostgreSQL array literals of numbers, booleans, text and times, written in one pass. The hot statements take one array per
 * column; handed a JavaScript array, the driver turns every element into a string, escapes and quotes it, which is
 * a good part of the order pipeline's cost per order. Passed as text, the statement's cast (`::bigint[]`, `::int[]`,
 * `::boolean[]`) reads them as the same arrays.
 */
export function numberArray(values: readonly (number | null)[]): string {
  let text = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i > 0) text += ',';
    if (value === null || value === undefined) text += 'NULL';
    else if (Number.isSafeInteger(value)) text += value;
    else throw new TypeError(`not an integer: ${value}`);
  }
  return `${text}}`;
}

export function booleanArray(values: readonly boolean[]): string {
  return `{${values.map((value) => (value ? 't' : 'f')).join(',')}}`;
}

/** Needs a backslash before it inside a quoted array element. */
const ESCAPED = /[\\"]/g;

/** Text: every element quoted (so that `NULL`, commas, braces and spaces stay text), `"` and `\` escaped. */
export function textArray(values: readonly (string | null)[]): string {
  let text = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i > 0) text += ',';
    if (value === null || value === undefined) text += 'NULL';
    else text += `"${value.replace(ESCAPED, '\\$&')}"`;
  }
  return `${text}}`;
}

/** Times, as ISO 8601 in UTC: what `::timestamptz[]` reads back as the same instants. */
export function timestampArray(values: readonly (Date | null)[]): string {
  let text = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i > 0) text += ',';
    text += value === null || value === undefined ? 'NULL' : `"${value.toISOString()}"`;
  }
  return `${text}}`;
}

import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';

/** Characters that make a spreadsheet read a cell as a formula (or hide what precedes it). */
const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r']);

/**
 * Neutralises formula injection: a text cell that a spreadsheet would evaluate gets a leading single quote,
 * which spreadsheets show as text and never execute. Numbers are written as numbers and left alone.
 */
export function neutraliseCell(value: string): string {
  return value.length > 0 && FORMULA_TRIGGERS.has(value.charAt(0)) ? `'${value}` : value;
}

export interface CsvColumn<Row> {
  header: string;
  value: (row: Row) => string | number;
}

/**
 * Streams rows as RFC 4180 CSV (CRLF line ends, fields with commas, quotes or line breaks quoted, quotes
 * doubled) with a header line. The rows are pulled one page at a time as the client reads.
 */
export function csvStream<Row>(rows: AsyncIterable<Row>, columns: CsvColumn<Row>[]): Readable {
  const records = Readable.from(
    (async function* () {
      for await (const row of rows) yield columns.map((column) => column.value(row));
    })(),
  );
  const stringifier = stringify({
    header: true,
    columns: columns.map((column) => column.header),
    record_delimiter: 'windows',
    cast: { string: neutraliseCell },
  });
  // pipeline destroys the output on a failure, so the client sees a broken download rather than a short file.
  return pipeline(records, stringifier, () => undefined);
}

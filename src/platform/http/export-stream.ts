import { Readable } from 'node:stream';

/**
 * Streamed list exports (`GET …/export?format=csv|json`): rows are written as they are read, never
 * held in memory.
 *
 * CSV cells follow RFC 4180: a cell with a comma, quote, CR or LF — or leading/trailing space, which
 * spreadsheets would trim — is quoted with inner quotes doubled. Text starting with = + - @ tab or CR is
 * what spreadsheets run as a formula (CSV injection), so it gets a leading apostrophe first: the cell
 * then shows the text as written. Numbers and booleans are written as they are, objects as JSON.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV record, CRLF-terminated as RFC 4180 asks. */
export const csvRow = (cells: readonly unknown[]): string => `${cells.map(csvCell).join(',')}\r\n`;

export interface ExportStream {
  contentType: string;
  stream: Readable;
}

/** CSV with a header row of `columns` (the API's field names), or `{"data":[…]}` with whole records. */
export function exportStream<T extends object>(format: 'csv' | 'json', columns: readonly (keyof T & string)[], items: AsyncIterable<T>): ExportStream {
  if (format === 'json') {
    return {
      contentType: 'application/json; charset=utf-8',
      stream: Readable.from((async function* () {
        yield '{"data":[';
        let sep = '';
        for await (const item of items) {
          yield sep + JSON.stringify(item);
          sep = ',';
        }
        yield ']}';
      })()),
    };
  }
  return {
    contentType: 'text/csv; charset=utf-8',
    stream: Readable.from((async function* () {
      yield csvRow(columns);
      for await (const item of items) yield csvRow(columns.map((c) => item[c]));
    })()),
  };
}

/**
 * CSV as RFC 4180 writes it (CRLF line ends; a field with a comma, quote, CR or LF quoted, its
 * quotes doubled), with text that a spreadsheet would run as a formula (starting with = + - @,
 * a tab or a CR) prefixed with an apostrophe: exported nicknames and reasons are user input.
 */
export type CsvCell = string | number | boolean | null;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: CsvCell): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLine(cells: readonly CsvCell[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** A spreadsheet opens the file as UTF-8 only with it (Excel guesses a legacy code page otherwise). */
export const UTF8_BOM = '\uFEFF';

/** Unix ms as ISO 8601 UTC, '' for none: readable in a spreadsheet, unambiguous across zones. */
export function csvTime(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toISOString();
}

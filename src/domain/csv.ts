// The one CSV writer every CSV Storyline writes goes through (the iteration analytics, cycle time details
// and release stories exports, `storyline export-pivotal-csv`; any CSV export to come), and the reading
// rule the Tracker CSV importer applies to every cell it reads back.
//
// RFC 4180: a field holding `"`, `,`, CR or LF is quoted, quotes doubled; CRLF line ends, a final one.
// Formula injection (OWASP "CSV Injection"): a spreadsheet runs a text cell beginning with `=`, `+`, `-`,
// `@`, tab or carriage return as a formula, so such a TEXT cell is written with a leading `'`. Numbers
// are cells of their own kind and written as they are: a -1 stays a number a spreadsheet can sum (no
// number can run as a formula). A text cell that already begins with quotes before one of those
// characters gets one more, so reading strips exactly one quote and every text comes back unchanged.

/** A number is written as a number; a string is text (neutralised); null is an empty field. */
export type CsvCell = string | number | null;

/** A text cell a spreadsheet would run as a formula (or one that the reader would otherwise strip). */
const FORMULA_START = /^'*[=+\-@\t\r]/;
/** What `neutralisedText` made of such a text: one quote more. */
const NEUTRALISED_START = /^'+[=+\-@\t\r]/;

/** CSV text of rows: every cell through `csvField`, CRLF line ends, a final line end. */
export function csvTable(rows: readonly (readonly CsvCell[])[]): string {
  return rows.map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** One field: numbers as they are, text neutralised, then quoted per RFC 4180 where needed. */
export function csvField(cell: CsvCell): string {
  if (cell === null) return '';
  const text = typeof cell === 'number' ? String(cell) : neutralisedText(cell);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A text cell as written: a leading `'` before a formula's first character. */
function neutralisedText(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** A cell as read back (after RFC 4180 unquoting): the one `'` the writer added is dropped. */
export function restoredText(cell: string): string {
  return NEUTRALISED_START.test(cell) ? cell.slice(1) : cell;
}

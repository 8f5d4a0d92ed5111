/**
 * Characters a spreadsheet may read as the start of a formula: `=`, `+`,
 * `-`, `@` and their full-width forms (`＝＋－＠`, which some locales'
 * spreadsheets treat alike), and tab or carriage return.
 */
const FORMULA_START = /^[\s\u3000]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]|^[\t\r]/;

/**
 * RFC 4180 CSV. A cell that a spreadsheet could read as a formula, even
 * behind leading spaces, gets a leading `'` (OWASP's advice against CSV
 * injection); cells with quotes, commas or line breaks are quoted.
 */
export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function toCsv(header: string[], rows: string[][]): string {
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

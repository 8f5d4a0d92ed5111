/**
 * RFC 4180 CSV. A cell that a spreadsheet would read as a formula (leading
 * `=`, `+`, `-`, `@`, tab or carriage return) gets a leading `'` (OWASP's
 * advice against CSV injection); cells with quotes, commas or line breaks are quoted.
 */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function toCsv(header: string[], rows: string[][]): string {
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

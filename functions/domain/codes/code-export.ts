/**
 * The codes' CSV, one format for the inline export and the export job: the spec's five columns
 * first and in order, then each code's watch link. With `tz` the times carry that zone's offset
 * (ISO 8601, as the console shows them).
 */
import { csvCell } from '../csv';
import { isoInTimeZone } from '../time-zone';
import type { CodeView } from './code-views';
import { watchLink } from './watch-link';

export interface ExportFormat {
  viewerUrl: string;
  tz: string | null;
}

const COLUMNS = ['code', 'label', 'status', 'createdAt', 'expiresAt', 'link'];

const line = (cells: string[]) => cells.map(csvCell).join(',');

export const exportHeader = () => line(COLUMNS);

export function exportLine(token: CodeView, format: ExportFormat): string {
  const time = (iso: string) => (format.tz ? isoInTimeZone(iso, format.tz) : iso);
  return line([token.code, token.label, token.status, time(token.createdAt), time(token.expiresAt), watchLink(format.viewerUrl, token.code)]);
}

/** The CSV's `Content-Disposition` (RFC 6266): an ASCII `filename` for old clients, the exact name (any script) as `filename*`. */
export function attachment(fileName: string): string {
  const ascii = fileName.normalize('NFKD').replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, '') || 'codes.csv';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

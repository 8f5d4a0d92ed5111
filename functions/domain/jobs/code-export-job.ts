/**
 * Exporting an event's codes as a background job: the inline export's CSV
 * (same columns, escaping and rows: code-export.ts), written to a file a part
 * at a time, so the worker's memory stays flat whatever the event's size.
 *
 * One lane walks the event's code pages (newest first, as the list). Step n
 * writes part n + 1 of the upload begun at the start, from the lane's codes cursor
 * (kept with the tags of the parts written, which complete the file),
 * so a step that runs again, whole or cut off halfway, writes the very same
 * part over itself: no row is lost or written twice. The last step's part
 * ends the walk; `finish` joins the parts into the file.
 */
import { exportHeader, exportLine, type ExportFormat } from '../codes';
import { LIST_LIMITS } from '../config';
import { JobStopped } from '../errors';
import type { ExportFiles } from './export-files';
import type { JobDeps, JobKind } from './job-kind';
import type { JobRecord } from './job-store';
import { codeView } from '../codes';

/** A part's least size: over S3's 5 MiB floor for every part but the last (about 50,000 rows). */
export const EXPORT_PART_BYTES = 6 * 1024 * 1024;
/** How long a download link works; each read of the job signs a new one. */
export const EXPORT_LINK_SECONDS = 15 * 60;

export interface ExportParams extends ExportFormat {
  fileName: string;
  /** The file's upload, begun when the job starts: every try of every step writes into the same one. */
  uploadId: string;
}

const paramsOf = (job: Pick<JobRecord, 'params'>) => job.params as unknown as ExportParams;
/** Where the lane's next step carries on: the codes cursor after the rows written, and the tags of the parts written. */
interface Position {
  codes: string | null;
  parts: string[];
}
const positionOf = (cursor: string | null): Position => (cursor ? (JSON.parse(cursor) as Position) : { codes: null, parts: [] });

/** Where export files live in their bucket, and how long (the bucket's lifecycle rule, infra/lib/constructs/exports.ts). */
export const EXPORT_PREFIX = 'exports/';
export const EXPORT_FILE_DAYS = 3;

export const exportFileKey = (job: Pick<JobRecord, 'eventId' | 'id'>) => `${EXPORT_PREFIX}${job.eventId}/${job.id}.csv`;

export function requireExportFiles(deps: JobDeps): ExportFiles {
  if (!deps.exportFiles) throw new JobStopped('Exports are not configured');
  return deps.exportFiles;
}

export const codeExportJob: JobKind = {
  permission: 'codes:manage',

  describe: (job) => `${job.total.toLocaleString('en-US')} code${job.total === 1 ? '' : 's'} to CSV`,

  lanes: () => 1,

  async runStep(deps, job, _laneIndex, lane, timeLeft) {
    const files = requireExportFiles(deps);
    const event = await deps.stores.events.getEvent(job.eventId);
    if (!event) throw new JobStopped('The event was deleted');
    const params = paramsOf(job);
    const key = exportFileKey(job);

    const lines: string[] = lane.step === 0 ? [exportHeader()] : [];
    let bytes = 0;
    let rows = 0;
    const from = positionOf(lane.cursor);
    let cursor = from.codes;
    do {
      // A part under S3's 5 MiB cannot be committed (only the last may be that small): the part is read again in the next try.
      if (timeLeft() <= 0) throw new Error(`stopped after ${rows} rows to stay within the worker's time`);
      const page = await deps.stores.codes.listCodePage({ eventId: job.eventId, filter: {}, cursor, limit: LIST_LIMITS.codePageScan });
      const now = deps.now();
      for (const code of page.codes) {
        const line = exportLine(codeView(code, event, now), params);
        lines.push(line);
        bytes += Buffer.byteLength(line) + 2;
      }
      rows += page.codes.length;
      cursor = page.nextCursor;
    } while (cursor && bytes < EXPORT_PART_BYTES);

    const tag = await files.writePart({ key, uploadId: params.uploadId, part: lane.step + 1, body: Buffer.from(lines.map((line) => `${line}\r\n`).join('')) });
    const next: Position = { codes: cursor, parts: [...from.parts.slice(0, lane.step), tag] };
    return { items: rows, finished: cursor === null, cursor: JSON.stringify(next) };
  },

  async finish(deps, job) {
    const parts = positionOf(job.lanes[0]!.cursor).parts.map((tag, i) => ({ part: i + 1, tag }));
    const bytes = await requireExportFiles(deps).complete({ key: exportFileKey(job), uploadId: paramsOf(job).uploadId, parts });
    return { fileName: paramsOf(job).fileName, rows: job.done, bytes };
  },

  async resultView(deps, job) {
    if (!deps.exportFiles) return job.result;
    const now = deps.now().getTime();
    const fileExpiresAt = new Date(Date.parse(job.finishedAt ?? job.createdAt) + EXPORT_FILE_DAYS * 86_400_000).toISOString();
    // The bucket's lifecycle deletes the file then (or up to a day later): no link to a file that may be gone.
    if (Date.parse(fileExpiresAt) <= now) return { ...job.result, fileExpiresAt };
    const downloadUrl = await deps.exportFiles.downloadUrl({ key: exportFileKey(job), fileName: paramsOf(job).fileName, seconds: EXPORT_LINK_SECONDS });
    return { ...job.result, fileExpiresAt, downloadUrl, downloadExpiresAt: new Date(now + EXPORT_LINK_SECONDS * 1000).toISOString() };
  },
};

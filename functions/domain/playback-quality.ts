/**
 * What a player measured of its playback since its previous heartbeat (the heartbeat's optional
 * `qoe`), and the running totals a session keeps of it on its code item. A heartbeat stays one
 * write to the viewer's own item: it adds the report to these totals; everything built from them
 * (an event's minutes, a ticket's record, the trouble list) is derived from the table's changes by
 * the audience recorder (audience-recorder.ts), never on the viewer's request.
 */
import * as z from 'zod';

/** One heartbeat's report, clamped to what one beat can honestly hold. */
export interface QualityReport {
  playingMs: number;
  stalledMs: number;
  stalls: number;
  /** First frame after the player started; sent once, on the first beat after it. */
  startupMs?: number;
  /** The average rendition bitrate while playing. */
  bitrateKbps?: number;
  droppedFrames: number;
  errors: number;
  /** Name of the last fatal player error (hls.js `details`, or the media element's error code). */
  lastFatal?: string;
  /**
   * This beat's errors by name (hls.js `details`, or the media element's error code), at most
   * `MAX_ERROR_TYPES` names; a session keeps its last beat's, which the audience recorder adds to
   * the minute of that beat.
   */
  errorTypes?: Record<string, number>;
}

/** A session's totals of its reports (absent on sessions that never sent one). */
export type SessionQuality = Omit<QualityReport, 'bitrateKbps'> & { bitrateKbps?: number };

/**
 * A beat covers 30 s; a player whose tab was hidden may beat a minute late, and the session times
 * out after 90 s. Four intervals of playing and stalled time together is more than any honest beat.
 */
export const MAX_BEAT_MS = 120_000;
/** Longer than this before a first frame is not a start-up, whatever the player says. */
export const MAX_STARTUP_MS = 600_000;
const MAX_COUNT = 1_000;
const MAX_BITRATE_KBPS = 200_000;
const MAX_DROPPED_FRAMES = 100_000;
const FATAL_NAME_MAX = 64;
/** Error names one beat may report; the rest are counted under `other`. */
export const MAX_ERROR_TYPES = 8;

/** A name for the admin's table and CSV, not free text: letters, digits and a few separators. */
const errorName = (value: string) => value.replace(/[^A-Za-z0-9_.:-]/g, '').slice(0, FATAL_NAME_MAX);

/** A whole, non-negative count or duration: out-of-range values are clamped, only a wrong type is refused. */
const bounded = (max: number) =>
  z
    .number({ error: 'must be a number' })
    .finite()
    .transform((value) => Math.min(max, Math.max(0, Math.round(value))));

const reportSchema = z.object({
  playingMs: bounded(MAX_BEAT_MS).default(0),
  stalledMs: bounded(MAX_BEAT_MS).default(0),
  stalls: bounded(MAX_COUNT).default(0),
  startupMs: bounded(MAX_STARTUP_MS).optional(),
  bitrateKbps: bounded(MAX_BITRATE_KBPS).optional(),
  droppedFrames: bounded(MAX_DROPPED_FRAMES).default(0),
  errors: z
    .object({
      count: bounded(MAX_COUNT).default(0),
      lastFatal: z.string({ error: 'must be a string' }).transform(errorName).optional(),
      types: z.record(z.string(), bounded(MAX_COUNT), { error: 'must be an object of counts' }).optional(),
    })
    .default({ count: 0 }),
});

/**
 * A beat's `count` errors by name: the names cleaned, the first `MAX_ERROR_TYPES` kept and the rest
 * under `other`, never more than `count` in all; what no name covers is `unknown` (a player that sends no names).
 */
function errorTypesOf(count: number, types: Record<string, number>): Record<string, number> {
  const named: Record<string, number> = {};
  let left = count;
  for (const [raw, n] of Object.entries(types)) {
    const name = Object.keys(named).length < MAX_ERROR_TYPES ? errorName(raw) || 'other' : 'other';
    const taken = Math.min(n, left);
    if (taken === 0) continue;
    named[name] = (named[name] ?? 0) + taken;
    left -= taken;
  }
  if (left > 0) named.unknown = (named.unknown ?? 0) + left;
  return named;
}

/** The heartbeat's `qoe` as a player sends it (docs/api.md): every field optional. */
export type QualityReportBody = z.input<typeof reportSchema>;

/** A report the heartbeat dropped: which field was wrong and how. */
export interface DroppedReport {
  field: string;
  problem: string;
}

/**
 * The heartbeat body's `qoe`, checked: `report` null without one. A report with a field of the wrong
 * type is dropped whole (`dropped` names the field): telemetry is the player's, the seat is the
 * viewer's, so a bad report never costs the beat. Absurd numbers are clamped, and playing and
 * stalled time together are scaled down to one beat's worth.
 */
export function parseQualityReport(body: unknown): { report: QualityReport | null; dropped?: DroppedReport } {
  const qoe = body && typeof body === 'object' ? (body as { qoe?: unknown }).qoe : undefined;
  if (qoe === undefined || qoe === null) return { report: null };
  if (typeof qoe !== 'object' || Array.isArray(qoe)) return { report: null, dropped: { field: 'qoe', problem: 'must be an object' } };
  const result = reportSchema.safeParse(qoe);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    return { report: null, dropped: { field: ['qoe', ...issue.path].join('.'), problem: issue.message } };
  }
  const { errors, ...rest } = result.data;
  const report: QualityReport = { ...rest, errors: errors.count };
  if (errors.lastFatal) report.lastFatal = errors.lastFatal;
  if (errors.count > 0) report.errorTypes = errorTypesOf(errors.count, errors.types ?? {});
  const watched = report.playingMs + report.stalledMs;
  if (watched > MAX_BEAT_MS) {
    report.playingMs = Math.round((report.playingMs * MAX_BEAT_MS) / watched);
    report.stalledMs = MAX_BEAT_MS - report.playingMs;
  }
  return { report };
}

/** Stalled ÷ (playing + stalled); 0 before anything was watched. */
export function stallRatio(quality: Pick<SessionQuality, 'playingMs' | 'stalledMs'>): number {
  const watched = quality.playingMs + quality.stalledMs;
  return watched > 0 ? quality.stalledMs / watched : 0;
}

/** Above this stall ratio a session was hard to watch (the console's "tickets with trouble"). */
export const TROUBLE_STALL_RATIO = 0.05;
/** A stall ratio says something only once a session watched this long. */
export const TROUBLE_MIN_WATCH_MS = 30_000;

/** A session whose player gave up (a fatal error) before its first frame. */
export function failedToStart(quality: Partial<SessionQuality>): boolean {
  return Boolean(quality.lastFatal) && quality.startupMs === undefined;
}

/** Why a session counts as trouble for its ticket holder, or null. */
export function sessionTrouble(quality: Partial<SessionQuality>): 'stalls' | 'failed-start' | null {
  if (failedToStart(quality)) return 'failed-start';
  const playingMs = quality.playingMs ?? 0;
  const stalledMs = quality.stalledMs ?? 0;
  if (playingMs + stalledMs >= TROUBLE_MIN_WATCH_MS && stallRatio({ playingMs, stalledMs }) > TROUBLE_STALL_RATIO) return 'stalls';
  return null;
}

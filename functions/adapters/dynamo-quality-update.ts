import type { QualityReport } from '../domain/playback-quality';

/** The session's totals a quality report adds to: counters and durations, each an addition to what is there. */
const QUALITY_SUMS = ['playingMs', 'stalledMs', 'stalls', 'droppedFrames', 'errors'] as const;

/**
 * A quality report as `SET` clauses on the session map (ADD cannot reach into a map that may lack the
 * field): sums added with `if_not_exists`, the first start-up time kept, the last bitrate and fatal
 * error replaced. Only what the report carries is written.
 */
export function qualityUpdate(report: QualityReport | null | undefined): { sets: string[]; values: Record<string, unknown> } {
  const sets: string[] = [];
  const values: Record<string, unknown> = {};
  if (!report) return { sets, values };
  for (const field of QUALITY_SUMS) {
    if (report[field] === 0) continue;
    sets.push(`#session.${field} = if_not_exists(#session.${field}, :zero) + :q_${field}`);
    values[`:q_${field}`] = report[field];
    values[':zero'] = 0;
  }
  if (report.startupMs !== undefined) {
    sets.push('#session.startupMs = if_not_exists(#session.startupMs, :q_startupMs)');
    values[':q_startupMs'] = report.startupMs;
  }
  for (const field of ['bitrateKbps', 'lastFatal'] as const) {
    if (report[field] === undefined) continue;
    sets.push(`#session.${field} = :q_${field}`);
    values[`:q_${field}`] = report[field];
  }
  // This beat's errors by name, replacing the last beat's: the audience recorder reads them off this write.
  sets.push('#session.errorTypes = :q_errorTypes');
  values[':q_errorTypes'] = report.errorTypes ?? {};
  return { sets, values };
}

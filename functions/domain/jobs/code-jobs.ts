import { codeExportQuery, exportFileName, statusFilter, type PresenceDeps } from '../codes';
import { ExportsNotConfigured, NotFound } from '../errors';
import { parseInput } from '../inputs';
import { generateCodesJobInput, revokeCodesJobInput } from './job-inputs';
import { randomId } from '../random';
import { hitRateLimit } from '../rate-limits';
import { dayInTimeZone } from '../time-zone';
import { exportFileKey, type ExportParams } from './code-export-job';
import type { RevocationParams } from './code-revocation-job';
import type { Actor } from '../audit';
import type { JobRecord } from './job-store';
import { startAuditedJob, type JobStartDeps } from './jobs';

/** Starts, by `actor`, a background job generating 1..1,000,000 codes (code-generation-job.ts); the worker runs it. */
export async function startCodeGeneration(deps: JobStartDeps, actor: Actor, eventId: string, body: unknown): Promise<JobRecord> {
  const params = parseInput(generateCodesJobInput, body);
  if (!(await deps.stores.events.getEvent(eventId))) throw new NotFound('event');
  await hitRateLimit(deps.stores.counters, 'generateJob', actor.name, deps.now());
  return startAuditedJob(deps, actor, { kind: 'generate-codes', eventId, total: params.count, params });
}

/** Starts a background job revoking an event's codes of one label or status (code-revocation-job.ts); the worker runs it. */
export async function startCodeRevocation(deps: JobStartDeps & PresenceDeps, actor: Actor, eventId: string, body: unknown): Promise<JobRecord> {
  const input = parseInput(revokeCodesJobInput, body);
  const event = await deps.stores.events.getEvent(eventId);
  if (!event) throw new NotFound('event');
  const params: RevocationParams = {
    ...input,
    filter: input.label !== undefined ? { label: input.label } : statusFilter(input.status, event, deps.now()),
    sessionTimeoutSeconds: deps.config.sessionTimeoutSeconds,
  };
  // Its steps walk every code of the event: `done` of `total` is the walk's progress, `result.revoked` the count.
  return startAuditedJob(deps, actor, { kind: 'revoke-codes', eventId, total: event.tokenCount, params });
}

/** Starts a background job writing the event's codes as CSV to a file (code-export-job.ts); the job's result links to it. */
export async function startCodeExport(deps: JobStartDeps, actor: Actor, eventId: string, viewerUrl: string, query: Record<string, string>) {
  const { tz } = parseInput(codeExportQuery, query);
  if (!deps.exportFiles) throw new ExportsNotConfigured('no export bucket');
  const event = await deps.stores.events.getEvent(eventId);
  if (!event) throw new NotFound('event');
  const fileName = exportFileName(event.title, dayInTimeZone(deps.now(), tz ?? 'UTC'));
  // The job's id names its file, so the upload begins with the id chosen here (one call, nothing written yet).
  const id = randomId(20);
  const uploadId = await deps.exportFiles.begin({ key: exportFileKey({ eventId, id }), fileName });
  const params: ExportParams = { viewerUrl, tz: tz ?? null, fileName, uploadId };
  return startAuditedJob(deps, actor, { id, kind: 'export-codes', eventId, total: event.tokenCount, params: { ...params } });
}

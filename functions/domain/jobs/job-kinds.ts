import { codeExportJob } from './code-export-job';
import { codeGenerationJob } from './code-generation-job';
import { codeRevocationJob } from './code-revocation-job';
import { copyTraceJob } from './copy-trace-job';
import { eventCancellationJob } from './event-cancellation-job';
import { eventDeletionJob } from './event-deletion-job';
import type { JobKind } from './job-kind';

/**
 * Every kind of background job. A new kind is a module like
 * code-generation-job.ts (its steps, its permission), a line here and the
 * route that starts it; the runner does the rest.
 */
export const JOB_KINDS = {
  'generate-codes': codeGenerationJob,
  'export-codes': codeExportJob,
  'delete-event': eventDeletionJob,
  'revoke-codes': codeRevocationJob,
  'event-cancellation': eventCancellationJob,
  'trace-copy': copyTraceJob,
} satisfies Record<string, JobKind>;

export type JobKindName = keyof typeof JOB_KINDS;

/** The kind a job record names; a name no kind has is a record this code never wrote. */
export function jobKindOf(name: string): JobKind {
  if (!Object.hasOwn(JOB_KINDS, name)) throw new Error(`unknown job kind "${name}"`);
  return JOB_KINDS[name as JobKindName];
}

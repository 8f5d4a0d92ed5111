/**
 * The accusation as the API runs it: a background job that scores every session of the event (a
 * sold-out show has millions). The tracer starts it with the bits it read and follows it as the console
 * follows a job, until it is done (its result is the verdict) or failed.
 */
import type { CopyTraceResult, JobView } from '../../functions/domain/jobs';
import { ApiError, type StaffApi } from './api-client';

/** The job as `GET /api/admin/jobs/:id` answers it, its result the verdict. */
type JobRead = Omit<JobView, 'result'> & { result?: CopyTraceResult };

/** Between two reads of the job. */
const POLL_MS = 1000;
/** A job this long without moving (no worker running, or one stuck) is given up here; it may still end, and be read later. */
const STALLED_MS = 10 * 60_000;

export async function traceByJob(
  api: StaffApi,
  eventId: string,
  bits: { part: string; index: number; bit: 0 | 1 | null }[],
  say: (line: string) => void,
): Promise<CopyTraceResult> {
  let { job } = await api.post<{ job: JobRead }>(`/api/admin/events/${encodeURIComponent(eventId)}/trace`, { bits });
  say(`scoring every session of the event's ${job.total.toLocaleString('en-US')} codes (job ${job.id})`);
  let movedAt = Date.now();
  let told = false;
  while (job.status !== 'done') {
    if (job.status === 'failed') throw new ApiError(`the trace job ${job.id} failed: ${job.error ?? 'no reason given'}`);
    if (Date.now() - movedAt > STALLED_MS) throw new ApiError(`the trace job ${job.id} made no progress for ${STALLED_MS / 60_000} minutes: read it later at /api/admin/jobs/${job.id}`);
    if (!told && job.status === 'queued' && Date.now() - movedAt > 30_000) {
      say('waiting for the job worker…');
      told = true;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const before = job;
    job = (await api.get<{ job: JobRead }>(`/api/admin/jobs/${encodeURIComponent(job.id)}`)).job;
    if (job.done !== before.done || job.status !== before.status) movedAt = Date.now();
  }
  if (!job.result) throw new ApiError(`the trace job ${job.id} ended without a verdict`);
  return job.result;
}

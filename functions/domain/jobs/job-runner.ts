/**
 * Runs one delivery of a job step (the worker Lambda calls this for every SQS
 * message). Steps are at-least-once; this makes their effect exactly once:
 * - a lane's position moves by one conditional write that adds the step's
 *   items to `done`, so a step delivered twice counts once;
 * - a step works until its work is done or its time is short (keeping
 *   `JOB_WORKER.commitReserveSeconds` to commit), and a unit of it that fails
 *   ends it early too: what it did is committed and the next step goes on from
 *   there, with tries of its own. Running short of time is progress;
 * - a step that could do nothing is tried again (`JOB_WORKER.tries`, with
 *   backoff), each try working half as long as the one before (`stopWhenLeft`); one that keeps failing with no progress, or whose worker keeps
 *   dying, is given up by one more delivery: the job reads `failed` with the
 *   reason and the message goes to the dead-letter queue. A retry
 *   (jobs.ts `retryJob`) or a redrive resumes the job from its lanes' positions;
 * - whatever follows from progress (the kind's `settle`, the end of the job,
 *   its audit entry) is brought up to date after every delivery, so a worker
 *   that died between two writes leaves nothing undone for long.
 */
import { recordAudit } from '../audit';
import { JobStopped } from '../errors';
import type { JobDeps } from './job-kind';
import { jobKindOf } from './job-kinds';
import type { Delivery, JobQueue, StepMessage } from './job-queue';
import { jobActor, type JobRecord } from './job-store';
import { JOB_WORKER } from './job-worker-settings';

export interface RunnerDeps extends JobDeps {
  queue: JobQueue;
}

/**
 * `done`: delete the message. `retry`: leave it for its next try. `dead`: the step was given up, leave it
 * for the dead-letter queue. `ignored`: not a step of any job here (delete it).
 */
export type StepOutcome = 'done' | 'retry' | 'dead' | 'ignored';

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 500);

/**
 * The time left (ms) at which a try stops working to commit: the commit reserve (half the time at most, so
 * a worker with a short timeout still gets work done). A try that follows one whose worker died before it
 * committed (a slow or stopped worker timed out) works half as long as that one did, so that on a worker
 * too slow for the first budget one of the tries still commits progress.
 */
export function stopWhenLeft(remainingMs: number, attempt: number): number {
  const reserve = Math.min(JOB_WORKER.commitReserveSeconds * 1000, remainingMs / 2);
  return remainingMs - (remainingMs - reserve) / 2 ** Math.max(0, attempt - 1);
}

export async function runStep(deps: RunnerDeps, message: StepMessage, delivery: Delivery): Promise<StepOutcome> {
  let job = await deps.stores.jobs.getJob(message.jobId);
  const lane = job?.lanes[message.lane];
  if (!job || !lane || message.step > lane.step) return 'ignored';

  if (message.step < lane.step || lane.finished) {
    await settle(deps, job);
    // Done already. A second delivery may follow a try that completed the step but stopped before sending the
    // next one; a duplicate's first delivery never sends it (the delivery that completed the step did).
    if (delivery.attempt > 1 && lane.step === message.step + 1 && !lane.finished) await deps.queue.send([{ ...message, step: lane.step }]);
    return 'done';
  }

  // A step given up before and redriven from the dead-letter queue gets its tries again, whatever SQS counted.
  if (delivery.attempt > JOB_WORKER.tries && !lane.failed) {
    await giveUp(deps, job, message, lane.error ?? `the worker stopped (timed out or crashed) in each of ${JOB_WORKER.tries} tries`);
    // Handed out at once, which is when the queue moves it to the dead-letter queue (and its alarm goes off).
    await delivery.retryIn(0);
    return 'dead';
  }
  if (job.status === 'queued') job = await deps.stores.jobs.markJobRunning(job.id, deps.now().toISOString());
  const stopWhen = stopWhenLeft(delivery.remainingMs(), delivery.attempt);
  let result;
  try {
    result = await jobKindOf(job.kind).runStep(deps, job, message.lane, lane, () => delivery.remainingMs() - stopWhen);
  } catch (error) {
    if (error instanceof JobStopped) {
      await giveUp(deps, job, message, error.reason, { abandon: false });
      return 'done';
    }
    await deps.stores.jobs.recordStepError({ id: job.id, lane: message.lane, step: message.step, error: errorText(error) });
    await delivery.retryIn(JOB_WORKER.retryDelaysSeconds[delivery.attempt - 1] ?? 0);
    return 'retry';
  }
  const after = await deps.stores.jobs.completeStep({
    id: job.id,
    lane: message.lane,
    step: message.step,
    items: result.items,
    cursor: result.cursor ?? null,
    finished: result.finished,
  });
  // Null: a duplicate delivery completed the step first; it settles and sends the next step.
  if (!after) return 'done';
  await settle(deps, after);
  if (!result.finished) await deps.queue.send([{ ...message, step: message.step + 1 }]);
  return 'done';
}

/** Marks the step (and the job) failed with `reason`, and undoes what the step did halfway. */
async function giveUp(deps: RunnerDeps, job: JobRecord, message: StepMessage, reason: string, options = { abandon: true }): Promise<void> {
  const lane = job.lanes[message.lane]!;
  const after = await deps.stores.jobs.failStep({ id: job.id, lane: message.lane, step: message.step, reason, now: deps.now().toISOString() });
  await settle(deps, after);
  if (options.abandon) await jobKindOf(job.kind).abandonStep?.(deps, after, message.lane, lane);
}

/** What follows from the job's progress: the kind's own (`settle`), the job's end or reopening, its audit entry. */
async function settle(deps: RunnerDeps, job: JobRecord): Promise<void> {
  const kind = jobKindOf(job.kind);
  await kind.settle?.(deps, job);
  if (job.status !== 'done' && job.lanes.every((lane) => lane.finished)) {
    const result = (await kind.finish?.(deps, job)) ?? null;
    job = (await deps.stores.jobs.finishJob({ id: job.id, result, now: deps.now().toISOString() })) ?? (await current(deps, job));
  } else if (job.status === 'failed' && !job.lanes.some((lane) => lane.failed)) {
    job = (await deps.stores.jobs.reopenJob(job.id)) ?? (await current(deps, job));
  }
  if ((job.status === 'done' || job.status === 'failed') && job.finishedAt && job.endAudited !== job.finishedAt) {
    // Keyed by the end itself: written again after a crash, it replaces the same entry.
    await recordAudit(
      deps,
      jobActor(job),
      {
        // Told apart in the log: a failed job is one to look at (and retry).
        action: job.status === 'done' ? 'job.done' : 'job.failed',
        eventId: job.eventId,
        target: kind.describe(job),
        details: { jobId: job.id, kind: job.kind, status: job.status, done: job.done, total: job.total, ...(job.error ? { error: job.error } : {}) },
      },
      { id: `${job.id}${Date.parse(job.finishedAt).toString(36)}`, at: job.finishedAt },
    );
    await deps.stores.jobs.markEndAudited(job.id, job.finishedAt);
  }
}

async function current(deps: RunnerDeps, job: JobRecord): Promise<JobRecord> {
  return (await deps.stores.jobs.getJob(job.id)) ?? job;
}

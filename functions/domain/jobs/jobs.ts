/**
 * Starting background jobs and reading them (the admin API). Their steps run
 * in the worker (job-runner.ts), never inside a request.
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { Conflict, NotFound } from '../errors';
import { parseInput } from '../inputs';
import type { JobDeps } from './job-kind';
import { JOB_KINDS, jobKindOf, type JobKindName } from './job-kinds';
import { MAX_LANES, type JobQueue } from './job-queue';
import type { JobRecord } from './job-store';
import { randomId } from '../random';
import { recordAudit, type Actor } from '../audit';
import type { Permission } from '../staff';

export interface JobStartDeps extends JobDeps {
  queue: JobQueue;
}

/** The API's view of a job. */
export function jobView(job: JobRecord) {
  return {
    id: job.id,
    kind: job.kind,
    eventId: job.eventId,
    status: job.status,
    done: job.done,
    total: job.total,
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
    ...(job.error ? { error: job.error } : {}),
    ...(job.result ? { result: job.result } : {}),
  };
}
export type JobView = ReturnType<typeof jobView>;

/** The view a reader gets: a done job's result as its kind presents it (an export's download link, signed anew on each read). */
export async function jobAnswer(deps: Pick<JobDeps, 'exportFiles' | 'now'>, job: JobRecord): Promise<JobView> {
  const view = jobView(job);
  const present = jobKindOf(job.kind).resultView;
  if (job.status !== 'done' || !job.result || !present) return view;
  return { ...view, result: await present(deps, { ...job, result: job.result }) };
}

/** Who may read a job: whoever may start one of its kind. */
export function jobPermission(job: Pick<JobRecord, 'kind'>): Permission {
  return jobKindOf(job.kind).permission;
}

/** A job's start in the audit log, by `actor`. */
export async function recordJobStart(deps: JobStartDeps, actor: Actor, job: JobRecord): Promise<void> {
  await recordAudit(deps, actor, { action: 'job.start', eventId: job.eventId, target: jobKindOf(job.kind).describe(job), details: { jobId: job.id, kind: job.kind, ...job.params } });
}

/** `startJob`, then its start in the audit log by `actor`. */
export async function startAuditedJob(deps: JobStartDeps, actor: Actor, args: Omit<Parameters<typeof startJob>[1], 'actor'>): Promise<JobRecord> {
  const job = await startJob(deps, { ...args, actor });
  await recordJobStart(deps, actor, job);
  return job;
}

/**
 * Records the job (queued), started by `actor`, and sends each lane's first step. If the queue
 * refuses, the job reads failed with the reason and the error propagates. `secret`: the job's own,
 * random unless the kind is handed one (a trace's mark key).
 */
export async function startJob(
  deps: JobStartDeps,
  args: { id?: string; kind: JobKindName; eventId: string; total: number; params: Record<string, unknown>; actor: Actor; secret?: string },
): Promise<JobRecord> {
  const lanes = JOB_KINDS[args.kind].lanes(args);
  if (!Number.isInteger(lanes) || lanes < 1 || lanes > MAX_LANES) throw new RangeError(`${args.kind}: ${lanes} lanes`);
  const job: JobRecord = {
    id: args.id ?? randomId(20),
    kind: args.kind,
    eventId: args.eventId,
    status: 'queued',
    done: 0,
    total: args.total,
    createdAt: deps.now().toISOString(),
    startedAt: null,
    finishedAt: null,
    error: null,
    result: null,
    params: args.params,
    secret: args.secret ?? randomBytes(32).toString('base64url'),
    lanes: Array.from({ length: lanes }, () => ({ step: 0, finished: false, cursor: null, error: null, failed: false })),
    startedBy: { actor: args.actor.name, clientIp: args.actor.clientIp },
    endAudited: null,
  };
  await deps.stores.jobs.createJob(job);
  try {
    await deps.queue.send(job.lanes.map((_, lane) => ({ jobId: job.id, lane, step: 0 })));
  } catch (error) {
    // A lane whose first step went out still runs (and clears its failure); the others would wait for ever.
    const now = deps.now().toISOString();
    for (let lane = 0; lane < lanes; lane++) {
      await deps.stores.jobs.failStep({ id: job.id, lane, step: 0, reason: 'The job could not be queued: start it again', now });
    }
    throw error;
  }
  return job;
}

/**
 * Retries a failed job: it reads `running` again, and each lane it had given up is queued again at its
 * position (its step and cursor), never from the start; the other lanes carry on as they were. Conflict
 * `job-not-failed` when it is not failed. If the queue refuses, the job reads failed again with the
 * reason and the error propagates.
 */
export async function retryJob(deps: JobStartDeps, actor: Actor, job: JobRecord): Promise<JobRecord> {
  const retried = await deps.stores.jobs.retryJob(job.id);
  if (!retried) throw new Conflict('job-not-failed');
  await queueRetry(deps, job, retried);
  await recordAudit(deps, actor, {
    action: 'job.retry',
    eventId: job.eventId,
    target: jobKindOf(job.kind).describe(job),
    details: { jobId: job.id, kind: job.kind, done: job.done, total: job.total, ...(job.error ? { error: job.error } : {}) },
  });
  return retried;
}

async function queueRetry(deps: JobStartDeps, job: JobRecord, retried: JobRecord): Promise<void> {
  const lanes = retried.lanes.flatMap((lane, index) => (job.lanes[index]?.failed && !lane.finished ? [{ jobId: job.id, lane: index, step: lane.step }] : []));
  try {
    await deps.queue.send(lanes);
  } catch (error) {
    const now = deps.now().toISOString();
    for (const message of lanes) await deps.stores.jobs.failStep({ ...message, id: job.id, reason: 'The job could not be queued: retry it again', now });
    throw error;
  }
}

export async function requireJob(deps: Pick<JobDeps, 'stores'>, id: string): Promise<JobRecord> {
  const job = await deps.stores.jobs.getJob(id);
  if (!job) throw new NotFound('job');
  return job;
}

const jobListQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) });

/** An event's jobs, newest first, of the kinds `mayRead` allows. */
export async function listEventJobs(deps: Pick<JobDeps, 'stores' | 'exportFiles' | 'now'>, eventId: string, query: Record<string, string>, mayRead: (permission: Permission) => boolean) {
  const { limit } = parseInput(jobListQuery, query);
  const jobs = await deps.stores.jobs.listEventJobs(eventId, limit);
  return { jobs: await Promise.all(jobs.filter((job) => mayRead(jobPermission(job))).map((job) => jobAnswer(deps, job))) };
}

/**
 * Background jobs as the store keeps them, and the port to that store.
 *
 * A job is cut into steps (one queue message each) that run along lanes: a
 * lane's steps run one after another (each step's message is sent by the step
 * before it), lanes run side by side. Each lane's position lives in the job
 * record, and a step moves it on with one conditional write that also adds the
 * step's items to `done`: a step delivered twice counts once.
 */

import type { Actor } from '../audit';

export const JOB_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface LaneState {
  /** The step to run next: how many of the lane's steps are done. */
  step: number;
  /** Set by the lane's last step. */
  finished: boolean;
  /** Where the next step carries on from, for kinds that walk a listing. */
  cursor: string | null;
  /** Why the current step failed last time, while it is being retried. */
  error: string | null;
  /** The current step was given up after its tries (its message went to the dead-letter queue). */
  failed: boolean;
}

export interface JobRecord {
  id: string;
  /** Its kind's name: one of the registry's (job-kinds.ts), which checks it where a kind is looked up. */
  kind: string;
  eventId: string;
  status: JobStatus;
  /** Items done: exact, whatever the redeliveries. */
  done: number;
  total: number;
  createdAt: string;
  /** When the first step began. */
  startedAt: string | null;
  /** When the job last ended (done or failed); null while it is queued or running. */
  finishedAt: string | null;
  /** Why the job failed. */
  error: string | null;
  result: Record<string, unknown> | null;
  /** What the kind was started with (checked at the start). */
  params: Record<string, unknown>;
  /** A secret of the job's own (base64url) for kinds that derive their items from one; dropped when the job is done. */
  secret: string | null;
  lanes: LaneState[];
  /** Who started it: the end of the job goes into the audit log in their name. */
  startedBy: { actor: string; clientIp: string };
  /** The `finishedAt` whose end is in the audit log already. */
  endAudited: string | null;
}

/**
 * The jobs port. Adapters raise NotFound and AlreadyExists of `errors.ts` and nothing from their SDK.
 * A generation job's codes are the codes port's, their count on the event the events port's
 * (`EventStore.countJobCodes`).
 */
export interface JobStore {
  /** AlreadyExists when the id is taken. */
  createJob(job: JobRecord): Promise<void>;
  getJob(id: string): Promise<JobRecord | null>;
  /** An event's jobs, newest first, at most `limit`. */
  listEventJobs(eventId: string, limit: number): Promise<JobRecord[]>;
  /** queued → running. The job as it is now (unchanged when it was not queued). NotFound. */
  markJobRunning(id: string, now: string): Promise<JobRecord>;
  /**
   * Completes step `step` of lane `lane` once: the lane moves to the next step (from `cursor`;
   * finished when `finished`), its error and failure are cleared, and `done` grows by `items`.
   * The job as it is now, or null when the lane was not at that step (another delivery did it).
   */
  completeStep(args: { id: string; lane: number; step: number; items: number; cursor: string | null; finished: boolean }): Promise<JobRecord | null>;
  /** Keeps why step `step` of the lane failed, while the lane is still at it. */
  recordStepError(args: { id: string; lane: number; step: number; error: string }): Promise<void>;
  /**
   * Gives up step `step` of the lane: the lane is failed, and so is the job (`error` = `reason`,
   * `finishedAt` = `now`). The job as it is now; unchanged when the lane was not at that step.
   */
  failStep(args: { id: string; lane: number; step: number; reason: string; now: string }): Promise<JobRecord>;
  /** failed → running once no lane is failed (a redriven step succeeded). Null when that does not apply. */
  reopenJob(id: string): Promise<JobRecord | null>;
  /**
   * failed → running for a retry: no lane is failed any more (nor keeps its failure's error), the job's
   * error and end are forgotten; the lanes keep their positions. Null when the job was not failed.
   */
  retryJob(id: string): Promise<JobRecord | null>;
  /** → done with `result`, once: null when the job was done already. */
  finishJob(args: { id: string; result: Record<string, unknown> | null; now: string }): Promise<JobRecord | null>;
  /** Notes that the end at `finishedAt` is in the audit log. */
  markEndAudited(id: string, finishedAt: string): Promise<void>;
}

/** Who started the job, as its record keeps them (the worker records the job's end in their name). */
export const jobActor = (job: Pick<JobRecord, 'startedBy'>): Actor => ({ name: job.startedBy.actor, clientIp: job.startedBy.clientIp });

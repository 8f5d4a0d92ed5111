import type { ExportFiles } from './export-files';
import type { JobRecord, LaneState } from './job-store';
import type { Permission } from './roles';
import type { Stores } from './stores';

/** What a job's steps work with. */
export interface JobDeps {
  stores: Stores;
  now(): Date;
  /** Where export jobs write their files; absent where exports are not configured. */
  exportFiles?: ExportFiles;
}

export interface StepResult {
  /** Items this step did (added to the job's `done` once). */
  items: number;
  /** This was the lane's last step. */
  finished: boolean;
  /** Where the lane's next step carries on from. */
  cursor?: string | null;
}

/**
 * One kind of background job (see job-kinds.ts). The runner (job-runner.ts)
 * does the rest: lanes, exact progress, retries, the dead-letter queue, the
 * job's status and its audit entries.
 */
export interface JobKind {
  /** Who may start the job and read it. */
  permission: Permission;
  /** What the job works on, in the audit log's words ("20,000 codes"). */
  describe(job: JobRecord): string;
  /** Lanes of a new job: 1..MAX_LANES. */
  lanes(job: Pick<JobRecord, 'total' | 'params'>): number;
  /**
   * Runs the lane's current step (`lane.step`). A step may run twice, or be cut off halfway and run
   * again: however often it runs, it leaves the same result. `remainingMs` is the worker's time left:
   * a step that would outlast it stops early (throws) and carries on in its next try. Throws JobStopped
   * when the job cannot go on at all.
   */
  runStep(deps: JobDeps, job: JobRecord, laneIndex: number, lane: LaneState, remainingMs: () => number): Promise<StepResult>;
  /** Undoes what a given-up step did halfway (best effort); a redrive from the dead-letter queue runs it again. */
  abandonStep?(deps: JobDeps, job: JobRecord, laneIndex: number, lane: LaneState): Promise<void>;
  /** After every delivery: brings up to date what follows from `done`. Idempotent. */
  settle?(deps: JobDeps, job: JobRecord): Promise<void>;
  /** The job's result once every lane finished. Idempotent. */
  finish?(deps: JobDeps, job: JobRecord): Promise<Record<string, unknown> | null>;
  /** The result as a reader gets it, on each read of a done job (an export's fresh download link). */
  resultView?(deps: Pick<JobDeps, 'exportFiles' | 'now'>, job: JobRecord & { result: Record<string, unknown> }): Promise<Record<string, unknown>>;
}

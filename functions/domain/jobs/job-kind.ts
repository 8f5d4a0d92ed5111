import type { ExportFiles } from './export-files';
import type { JobRecord, JobStore, LaneState } from './job-store';
import type { Permission } from '../staff';
import type { AudienceStore } from '../audience';
import type { AuditStore } from '../audit';
import type { CodeStore } from '../codes';
import type { CounterStore } from '../counter-store';
import type { EventStore } from '../events';
import type { OrderStore, PaymentProvider } from '../commerce';

/** What the job worker gives the runner and the kinds: the ports they touch (never the staff accounts), the clock and the export files. */
export interface JobDeps {
  stores: { events: EventStore; codes: CodeStore; counters: CounterStore; jobs: JobStore; audience: AudienceStore; audit: AuditStore; orders: OrderStore };
  now(): Date;
  /** Where export jobs write their files; absent where exports are not configured. */
  exportFiles?: ExportFiles;
  /** Stripe, for a cancelled show's refunds (the commerce secret's key); absent or null where none is configured. */
  payments?: () => Promise<PaymentProvider | null>;
}

export interface StepResult {
  /** Items this step did (added to the job's `done` once). */
  items: number;
  /** The lane's work is done. */
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
   * Runs the lane's current step (`lane.step`) from the lane's position (`lane.cursor`). A step may run
   * twice, or be cut off halfway and run again: however often it runs, it leaves the same result.
   * `timeLeft` is how long it may still work (ms): short of time, it returns what it did and where the
   * next step goes on (step-work.ts), as it does when a unit of its work fails after others succeeded.
   * It throws when it could do nothing (tried again, then given up: the error's message is the job's
   * reason, in the organiser's words, ItemsFailed), and JobStopped when the job cannot go on at all.
   */
  runStep(deps: JobDeps, job: JobRecord, laneIndex: number, lane: LaneState, timeLeft: () => number): Promise<StepResult>;
  /** Undoes what a given-up step did halfway (best effort); a redrive from the dead-letter queue runs it again. */
  abandonStep?(deps: JobDeps, job: JobRecord, laneIndex: number, lane: LaneState): Promise<void>;
  /** After every delivery: brings up to date what follows from `done`. Idempotent. */
  settle?(deps: JobDeps, job: JobRecord): Promise<void>;
  /** The job's result once every lane finished. Idempotent. */
  finish?(deps: JobDeps, job: JobRecord): Promise<Record<string, unknown> | null>;
  /** The result as a reader gets it, on each read of a done job (an export's fresh download link). */
  resultView?(deps: Pick<JobDeps, 'exportFiles' | 'now'>, job: JobRecord & { result: Record<string, unknown> }): Promise<Record<string, unknown>>;
}

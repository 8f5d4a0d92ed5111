import { AlreadyExists, NotFound } from '../../functions/domain/errors';
import type { JobRecord, JobStore } from '../../functions/domain/jobs';
import { copy } from './memory-records';

/**
 * The jobs port in memory (memory-stores.ts). Each method reads and writes without awaiting in
 * between, so it is as atomic as one conditional write.
 */
export class MemoryJobStore implements JobStore {
  private readonly jobs = new Map<string, JobRecord>();

  private stored(id: string): JobRecord {
    const job = this.jobs.get(id);
    if (!job) throw new NotFound('job', id);
    return job;
  }

  async createJob(job: JobRecord): Promise<void> {
    if (this.jobs.has(job.id)) throw new AlreadyExists(`job ${job.id} exists`);
    this.jobs.set(job.id, copy(job));
  }

  async getJob(id: string): Promise<JobRecord | null> {
    const job = this.jobs.get(id);
    return job ? copy(job) : null;
  }

  async listEventJobs(eventId: string, limit: number): Promise<JobRecord[]> {
    return [...this.jobs.values()]
      .filter((job) => job.eventId === eventId)
      .sort((a, b) => `${b.createdAt}#${b.id}`.localeCompare(`${a.createdAt}#${a.id}`))
      .slice(0, limit)
      .map(copy);
  }

  async markJobRunning(id: string, now: string): Promise<JobRecord> {
    const job = this.stored(id);
    if (job.status === 'queued') Object.assign(job, { status: 'running', startedAt: now });
    return copy(job);
  }

  async completeStep(args: Parameters<JobStore['completeStep']>[0]): Promise<JobRecord | null> {
    const job = this.jobs.get(args.id);
    const lane = job?.lanes[args.lane];
    if (!job || !lane || lane.step !== args.step || lane.finished) return null;
    Object.assign(lane, { step: args.step + 1, finished: args.finished, cursor: args.cursor, error: null, failed: false });
    job.done += args.items;
    return copy(job);
  }

  async recordStepError(args: { id: string; lane: number; step: number; error: string }): Promise<void> {
    const lane = this.jobs.get(args.id)?.lanes[args.lane];
    if (lane && lane.step === args.step && !lane.finished) lane.error = args.error;
  }

  async failStep(args: { id: string; lane: number; step: number; reason: string; now: string }): Promise<JobRecord> {
    const job = this.stored(args.id);
    const lane = job.lanes[args.lane];
    if (lane && lane.step === args.step && !lane.finished && job.status !== 'done') {
      Object.assign(lane, { failed: true, error: args.reason });
      job.status = 'failed';
      job.finishedAt ??= args.now;
      job.error ??= args.reason;
    }
    return copy(job);
  }

  async reopenJob(id: string): Promise<JobRecord | null> {
    const job = this.stored(id);
    if (job.status !== 'failed' || job.lanes.some((lane) => lane.failed)) return null;
    Object.assign(job, { status: 'running', finishedAt: null, error: null });
    return copy(job);
  }

  async retryJob(id: string): Promise<JobRecord | null> {
    const job = this.stored(id);
    if (job.status !== 'failed') return null;
    for (const lane of job.lanes) if (lane.failed) Object.assign(lane, { failed: false, error: null });
    Object.assign(job, { status: 'running', finishedAt: null, error: null });
    return copy(job);
  }

  async finishJob(args: { id: string; result: Record<string, unknown> | null; now: string }): Promise<JobRecord | null> {
    const job = this.jobs.get(args.id);
    if (!job || job.status === 'done') return null;
    Object.assign(job, { status: 'done', finishedAt: args.now, result: copy(args.result), secret: null, error: null });
    return copy(job);
  }

  async markEndAudited(id: string, finishedAt: string): Promise<void> {
    const job = this.jobs.get(id);
    if (job?.finishedAt === finishedAt) job.endAudited = finishedAt;
  }
}

import { describe, expect, it } from 'vitest';
import { AlreadyExists, NotFound } from '../../functions/domain/errors';
import type { JobRecord } from '../../functions/domain/jobs';
import { randomId } from '../../functions/domain/random';
import { sampleEvent } from '../support/store-records';
import { storesForSuite, type StoreFactory } from '../support/store-under-test';

const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();

function sampleJob(eventId: string, overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    id: randomId(20),
    kind: 'generate-codes',
    eventId,
    status: 'queued',
    done: 0,
    total: 2500,
    createdAt: iso(),
    startedAt: null,
    finishedAt: null,
    error: null,
    result: null,
    params: { count: 2500, label: 'Door' },
    secret: 's'.repeat(43),
    lanes: [0, 1, 2].map(() => ({ step: 0, finished: false, cursor: null, error: null, failed: false })),
    startedBy: { actor: 'owner', clientIp: '127.0.0.1' },
    endAudited: null,
    ...overrides,
  };
}

/**
 * The jobs port's contract (and the events port's count of a job's codes), run against the DynamoDB
 * adapters on every DynamoDB implementation we rely on and against the in-memory twins the unit tests use.
 */
export function describeJobStoreContract(name: string, open: StoreFactory) {
  describe(`JobStore contract on ${name}`, () => {
    const stores = storesForSuite(open);

    async function newJob(overrides: Partial<JobRecord> = {}) {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      const job = sampleJob(event.id, overrides);
      await stores.jobs.createJob(job);
      return { event, job };
    }

    it('creates, reads and lists an event’s jobs, newest first', async () => {
      const { event, job } = await newJob({ createdAt: iso(-2000) });
      await expect(stores.jobs.createJob(job)).rejects.toBeInstanceOf(AlreadyExists);
      expect(await stores.jobs.getJob(job.id)).toEqual(job);
      expect(await stores.jobs.getJob('no-such-job')).toBeNull();
      const newer = sampleJob(event.id, { createdAt: iso(-1000) });
      await stores.jobs.createJob(newer);
      await stores.jobs.createJob(sampleJob(randomId()));
      expect((await stores.jobs.listEventJobs(event.id, 10)).map((j) => j.id)).toEqual([newer.id, job.id]);
      expect((await stores.jobs.listEventJobs(event.id, 1)).map((j) => j.id)).toEqual([newer.id]);
    });

    it('starts a queued job once', async () => {
      const { job } = await newJob();
      const at = iso();
      expect(await stores.jobs.markJobRunning(job.id, at)).toMatchObject({ status: 'running', startedAt: at });
      expect(await stores.jobs.markJobRunning(job.id, iso(5000))).toMatchObject({ status: 'running', startedAt: at });
      await expect(stores.jobs.markJobRunning('no-such-job', at)).rejects.toBeInstanceOf(NotFound);
    });

    it('completes a step exactly once, however many deliveries race for it', async () => {
      const { job } = await newJob();
      const complete = () => stores.jobs.completeStep({ id: job.id, lane: 1, step: 0, items: 1000, cursor: 'next', finished: false });
      const results = await Promise.all(Array.from({ length: 8 }, complete));
      expect(results.filter((result) => result !== null)).toHaveLength(1);
      const after = (await stores.jobs.getJob(job.id))!;
      expect(after.done).toBe(1000);
      expect(after.lanes[1]).toEqual({ step: 1, finished: false, cursor: 'next', error: null, failed: false });
      expect(after.lanes[0]!.step).toBe(0);
      // A step the lane is past, or ahead of, changes nothing.
      expect(await stores.jobs.completeStep({ id: job.id, lane: 1, step: 0, items: 1000, cursor: null, finished: false })).toBeNull();
      expect(await stores.jobs.completeStep({ id: job.id, lane: 1, step: 5, items: 1000, cursor: null, finished: false })).toBeNull();
      expect(await stores.jobs.completeStep({ id: job.id, lane: 1, step: 1, items: 500, cursor: null, finished: true })).toMatchObject({ done: 1500 });
      expect(await stores.jobs.completeStep({ id: job.id, lane: 1, step: 2, items: 1, cursor: null, finished: false })).toBeNull();
    });

    it('keeps a step’s error while it is retried, and forgets it once the step is done', async () => {
      const { job } = await newJob();
      await stores.jobs.recordStepError({ id: job.id, lane: 0, step: 0, error: 'throttled' });
      await stores.jobs.recordStepError({ id: job.id, lane: 0, step: 3, error: 'not this step' });
      expect((await stores.jobs.getJob(job.id))!.lanes[0]!.error).toBe('throttled');
      await stores.jobs.completeStep({ id: job.id, lane: 0, step: 0, items: 1000, cursor: null, finished: false });
      expect((await stores.jobs.getJob(job.id))!.lanes[0]!.error).toBeNull();
    });

    it('fails a job when a step is given up, keeps the first reason, and reopens it once the step succeeds', async () => {
      const { job } = await newJob();
      const first = iso();
      const failed = await stores.jobs.failStep({ id: job.id, lane: 2, step: 0, reason: 'disk on fire', now: first });
      expect(failed).toMatchObject({ status: 'failed', error: 'disk on fire', finishedAt: first });
      expect(failed.lanes[2]).toMatchObject({ failed: true, error: 'disk on fire' });
      const again = await stores.jobs.failStep({ id: job.id, lane: 0, step: 0, reason: 'second', now: iso(1000) });
      expect(again).toMatchObject({ status: 'failed', error: 'disk on fire', finishedAt: first });
      // Not the lane's step: nothing changes.
      expect((await stores.jobs.failStep({ id: job.id, lane: 1, step: 4, reason: 'stale', now: iso() })).lanes[1]!.failed).toBe(false);
      expect(await stores.jobs.reopenJob(job.id)).toBeNull();
      await stores.jobs.completeStep({ id: job.id, lane: 2, step: 0, items: 500, cursor: null, finished: true });
      expect(await stores.jobs.reopenJob(job.id)).toBeNull();
      await stores.jobs.completeStep({ id: job.id, lane: 0, step: 0, items: 1000, cursor: null, finished: true });
      const reopened = await stores.jobs.reopenJob(job.id);
      expect(reopened).toMatchObject({ status: 'running', error: null, finishedAt: null, done: 1500 });
      expect(await stores.jobs.reopenJob(job.id)).toBeNull();
    });

    it('retries a failed job only: its lanes keep their positions, no lane stays failed, its error and end are forgotten', async () => {
      const { job } = await newJob({ status: 'running' });
      expect(await stores.jobs.retryJob(job.id)).toBeNull();
      await stores.jobs.completeStep({ id: job.id, lane: 1, step: 0, items: 400, cursor: '400', finished: false });
      await stores.jobs.recordStepError({ id: job.id, lane: 0, step: 0, error: 'throttled' });
      await stores.jobs.failStep({ id: job.id, lane: 1, step: 1, reason: '12 codes could not be generated: throttled', now: iso() });
      const retried = await stores.jobs.retryJob(job.id);
      expect(retried).toMatchObject({ status: 'running', error: null, finishedAt: null, done: 400 });
      expect(retried!.lanes).toEqual([
        { step: 0, finished: false, cursor: null, error: 'throttled', failed: false },
        { step: 1, finished: false, cursor: '400', error: null, failed: false },
        { step: 0, finished: false, cursor: null, error: null, failed: false },
      ]);
      expect(await stores.jobs.getJob(job.id)).toEqual(retried);
      // Once: a second retry finds it running.
      expect(await stores.jobs.retryJob(job.id)).toBeNull();
      await expect(stores.jobs.retryJob('no-such-job')).rejects.toBeInstanceOf(NotFound);
    });

    it('finishes a job once, keeps its result and forgets its secret', async () => {
      const { job } = await newJob({ status: 'running' });
      const at = iso();
      const done = await stores.jobs.finishJob({ id: job.id, result: { count: 2500, label: 'Door' }, now: at });
      expect(done).toMatchObject({ status: 'done', finishedAt: at, result: { count: 2500, label: 'Door' }, secret: null, error: null });
      expect(await stores.jobs.finishJob({ id: job.id, result: null, now: iso(1000) })).toBeNull();
      expect(await stores.jobs.failStep({ id: job.id, lane: 0, step: 0, reason: 'late', now: iso() })).toMatchObject({ status: 'done', error: null });
      await stores.jobs.markEndAudited(job.id, iso(-5000));
      expect((await stores.jobs.getJob(job.id))!.endAudited).toBeNull();
      await stores.jobs.markEndAudited(job.id, at);
      expect((await stores.jobs.getJob(job.id))!.endAudited).toBe(at);
    });

    it('counts a job’s codes on its event once, whatever order and repetition the counts come in (the events port)', async () => {
      const { event, job } = await newJob();
      const count = (done: number, jobId = job.id) => stores.events.countJobCodes({ eventId: event.id, jobId, done });
      const tokenCount = async () => (await stores.events.getEvent(event.id))!.tokenCount;
      await stores.events.addToCodeCount(event.id, 7);
      await count(1000);
      await count(1000);
      await count(500);
      expect(await tokenCount()).toBe(1007);
      await Promise.all([2000, 1500, 2500, 2000, 2500].map((done) => count(done)));
      expect(await tokenCount()).toBe(2507);
      // Another job's codes count apart, and the event reads as before.
      await count(3, 'other');
      expect(await tokenCount()).toBe(2510);
      expect(await stores.events.getEvent(event.id)).toEqual({ ...event, tokenCount: 2510 });
      await stores.events.deleteEvent(event.id, iso());
      await count(3000);
      await stores.events.countJobCodes({ eventId: 'no-such-event', jobId: job.id, done: 3000 });
    });
  });
}

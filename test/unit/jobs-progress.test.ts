/**
 * Jobs on a slow or faulty worker, on the in-memory stores and queue: a step
 * short of time commits what it did and the next step goes on from there (no
 * failure); a redriven or retried job resumes from its lanes' positions, never
 * from the start; only an item that keeps failing, with no progress, fails
 * the job, which then says why in plain words.
 */
import { describe, expect, it } from 'vitest';
import { derivedAccessCode } from '../../functions/domain/codes';
import { startCodeGeneration, startCodeRevocation } from '../../functions/domain/jobs';
import type { CodeStore } from '../../functions/domain/codes';
import { Conflict } from '../../functions/domain/errors';
import { JOB_WORKER, stopWhenLeft } from '../../functions/domain/jobs';
import { retryJob } from '../../functions/domain/jobs';
import { jobFixture } from '../support/job-fixture';
import { sampleCode } from '../support/store-records';
import { actor } from '../support/domain-fixture';

const STARTER = { name: 'boxoffice', clientIp: '198.51.100.9' };

const setup = jobFixture;

/** The event's codes, and whether any repeats. */
async function codesOf(t: ReturnType<typeof setup>, eventId: string) {
  const codes = await t.memory.codes.listCodes(eventId);
  return { count: codes.length, unique: new Set(codes.map((code) => code.code)).size };
}

describe('a step short of time', () => {
  it('commits the codes it made, with its lane’s position, and the next step goes on from there: no failure, no code twice', async () => {
    // The worker's time runs out as codes are written: 100 ms of a 30 s invocation per code.
    let writes = 0;
    const t = setup((real) => ({
      createCode: async (code: Parameters<CodeStore['createCode']>[0]) => {
        writes++;
        return real.createCode(code);
      },
    }));
    const { event } = await t.fixture.eventWithCode();
    const job = await startCodeGeneration(t.deps, STARTER, event.id, { count: 1000, label: 'Door' });
    let writesAtStart = 0;
    const remainingMs = () => 30_000 - (writes - writesAtStart) * 100;

    writesAtStart = writes;
    expect(await t.queue.drain(t.deps, { maxRounds: 1, remainingMs })).toEqual(['done']);
    // 30 s less the 10 s kept to commit: 200 codes, 8 slices of 25.
    const partial = (await t.memory.jobs.getJob(job.id))!;
    expect(partial).toMatchObject({ status: 'running', done: 200, error: null, lanes: [{ step: 1, cursor: '200', finished: false, error: null, failed: false }] });
    expect(t.queue.ready.map((step) => step.message)).toEqual([{ jobId: job.id, lane: 0, step: 1 }]);
    expect(await codesOf(t, event.id)).toEqual({ count: 201, unique: 201 });

    for (let round = 0; t.queue.ready.length > 0; round++) {
      writesAtStart = writes;
      expect(await t.queue.drain(t.deps, { maxRounds: 1, remainingMs })).toEqual(['done']);
      expect(round).toBeLessThan(5);
    }
    expect(await t.memory.jobs.getJob(job.id)).toMatchObject({ status: 'done', done: 1000, error: null });
    expect(writes).toBe(1000);
    expect(await codesOf(t, event.id)).toEqual({ count: 1001, unique: 1001 });
  });
});

describe('a worker that dies before it commits', () => {
  it('gives each further try of the step half the working time of the one before, the commit reserve kept', () => {
    // A 9 s worker keeps half for its commit (works 4.5 s, then 2.25 s, …); a 60 s one keeps the 10 s reserve.
    expect([1, 2, 3, 5].map((attempt) => stopWhenLeft(9_000, attempt))).toEqual([4_500, 6_750, 7_875, 8_718.75]);
    const reserve = JOB_WORKER.commitReserveSeconds * 1000;
    expect(stopWhenLeft(60_000, 1)).toBe(reserve);
    expect(stopWhenLeft(60_000, 2)).toBe(60_000 - (60_000 - reserve) / 2);
  });
});

describe('a failing item', () => {
  /** 300 codes labelled VIP (one lane, pages of 25, newest first); the revocation of 12 codes of the fifth page fails while `failing` says so. */
  async function revocation(failing: () => boolean) {
    const failed = new Set<string>();
    const listedFromStart: number[] = [];
    const t = setup((real) => ({
      setCodeRevoked: async (id: string, revoked: boolean, now: string) => {
        if (failed.has(id) && failing()) throw new Error('the table refused a write');
        return real.setCodeRevoked(id, revoked, now);
      },
      listCodePage: async (args: Parameters<CodeStore['listCodePage']>[0]) => {
        if (args.cursor === null) listedFromStart.push(Date.now());
        return real.listCodePage(args);
      },
    }));
    const { event } = await t.fixture.eventWithCode({ event: { tokenCount: 300 }, code: { label: 'VIP' } });
    const at = t.fixture.now().getTime();
    for (let i = 1; i < 300; i++) {
      const code = sampleCode(event.id, { label: 'VIP', createdAt: new Date(at - i).toISOString() });
      await t.memory.codes.createCode(code);
      if (i >= 100 && i < 112) failed.add(code.id);
    }
    const job = await startCodeRevocation(t.deps, STARTER, event.id, { label: 'VIP' });
    return { t, event, job, listedFromStart };
  }

  it('fails the job only after tries with no progress, saying how many codes could not be revoked and why', async () => {
    const { t, event, job } = await revocation(() => true);
    const outcomes = await t.queue.drain(t.deps);
    // The first step commits the first page; the next one fails at once on each try, and is given up.
    expect(outcomes).toEqual(['done', ...Array(JOB_WORKER.tries).fill('retry'), 'dead']);
    expect(await t.memory.jobs.getJob(job.id)).toMatchObject({
      status: 'failed',
      done: 100,
      error: '12 codes could not be revoked: the table refused a write',
    });
    expect(t.queue.dead).toHaveLength(1);
    // Every other code of that page was revoked all the same.
    const codes = await t.memory.codes.listCodes(event.id);
    expect(codes.slice(0, 125).filter((code) => !code.isRevoked)).toHaveLength(12);
    const failed = await t.memory.audit.listAuditEntries({ eventId: event.id, action: 'job.failed', cursor: null, limit: 10 });
    expect(failed.entries.map((entry) => entry.details)).toEqual([
      { jobId: job.id, kind: 'revoke-codes', status: 'failed', done: 100, total: 300, error: '12 codes could not be revoked: the table refused a write' },
    ]);
  });

  it('does not fail a job whose steps keep making progress, however often an item fails once', async () => {
    let failures = 0;
    const { t, job } = await revocation(() => failures++ < 11);
    await t.queue.drain(t.deps);
    expect(await t.memory.jobs.getJob(job.id)).toMatchObject({ status: 'done', done: 300, result: { revoked: 300, label: 'VIP' } });
  });

  it('is retried from where its lanes stopped: the job ends done with the exact count, never walked from the start again', async () => {
    let broken = true;
    const { t, event, job, listedFromStart } = await revocation(() => broken);
    await t.queue.drain(t.deps);
    const failed = (await t.memory.jobs.getJob(job.id))!;
    expect(failed.status).toBe('failed');
    t.fixture.advance(60);
    await expect(retryJob(t.deps, actor(), (await t.memory.jobs.getJob(job.id))!)).resolves.toMatchObject({ status: 'running', done: 100, error: null, finishedAt: null });
    // Once: the job is running now.
    await expect(retryJob(t.deps, actor(), failed)).rejects.toEqual(new Conflict('job-not-failed'));

    broken = false;
    const walksBefore = listedFromStart.length;
    t.queue.dead.length = 0;
    await t.queue.drain(t.deps);
    expect(await t.memory.jobs.getJob(job.id)).toMatchObject({ status: 'done', done: 300, error: null, result: { revoked: 300, label: 'VIP' } });
    expect(listedFromStart).toHaveLength(walksBefore);
    expect((await t.memory.codes.listCodes(event.id)).filter((code) => !code.isRevoked)).toEqual([]);
    const counters = await t.memory.counters.eventCounters({ eventId: event.id, presenceSince: job.createdAt });
    expect(counters.revoked).toBe(300);
    const ends = async (action: 'job.done' | 'job.failed') => (await t.memory.audit.listAuditEntries({ eventId: event.id, action, cursor: null, limit: 10 })).entries;
    expect(await ends('job.failed')).toHaveLength(1);
    expect((await ends('job.done')).map((entry) => entry.details)).toEqual([{ jobId: job.id, kind: 'revoke-codes', status: 'done', done: 300, total: 300 }]);
  });
});

describe('a redriven step', () => {
  it('resumes from its lane’s position: no code before it is made again', async () => {
    // Codes from number 300 on fail until the fault is fixed: the first step commits 300 codes, the next is given up.
    const poison = new Set<string>();
    const written: string[] = [];
    const t = setup((real) => ({
      createCode: async (code: Parameters<CodeStore['createCode']>[0]) => {
        written.push(code.code);
        if (poison.has(code.code)) throw new Error('the table refused a write');
        return real.createCode(code);
      },
    }));
    const { event } = await t.fixture.eventWithCode();
    const job = await startCodeGeneration(t.deps, STARTER, event.id, { count: 1000, label: 'Door' });
    const seed = Buffer.from((await t.memory.jobs.getJob(job.id))!.secret!, 'base64url');
    for (let i = 300; i < 1000; i++) poison.add(derivedAccessCode(seed, i, 0));
    await t.queue.drain(t.deps);
    expect(await t.memory.jobs.getJob(job.id)).toMatchObject({
      status: 'failed',
      done: 300,
      error: '25 codes could not be generated: the table refused a write',
      lanes: [{ step: 1, cursor: '300', failed: true }],
    });

    poison.clear();
    written.length = 0;
    t.queue.redrive();
    await t.queue.drain(t.deps);
    expect(await t.memory.jobs.getJob(job.id)).toMatchObject({ status: 'done', done: 1000, error: null });
    const before = new Set(Array.from({ length: 300 }, (_, i) => derivedAccessCode(seed, i, 0)));
    expect(written.filter((code) => before.has(code))).toEqual([]);
    expect(written).toHaveLength(700);
    expect(await codesOf(t, event.id)).toEqual({ count: 1001, unique: 1001 });
  });
});

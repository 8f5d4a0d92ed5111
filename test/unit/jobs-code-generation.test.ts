/**
 * Code generation as a background job, on the in-memory stores and queue: the
 * plan of lanes and steps, and the exact count and uniqueness of the codes
 * whatever the queue does (duplicates, crashes between two writes, steps cut
 * off halfway, poison steps, a redrive from the dead-letter queue).
 */
import { describe, expect, it } from 'vitest';
import { CODE_ALPHABET, CODE_LENGTH, derivedAccessCode } from '../../functions/domain/codes';
import { startCodeGeneration } from '../../functions/domain/jobs';
import { setEventActive } from '../../functions/domain/codes';
import { deleteEvent } from '../../functions/domain/jobs';
import { CODES_PER_STEP, GENERATION_LANES, codeGenerationJob, stepCodes } from '../../functions/domain/jobs';
import { jobView } from '../../functions/domain/jobs';
import { JOB_WORKER } from '../../functions/domain/jobs';
import type { CodeStore } from '../../functions/domain/codes';
import { MemoryJobQueue } from '../../harness/memory-job-queue';
import { memoryStores, type MemoryStores } from '../support/memory-stores';
import { sampleEvent } from '../support/store-records';
import { refusal } from '../support/domain-fixture';
import { RATE_LIMITS } from '../../functions/domain/config';

const STARTER = { name: 'boxoffice', clientIp: '198.51.100.9' };

/** The stores, the queue and the worker's dependencies; `codes` may wrap the codes port to inject faults (it is given the stores). */
function setup(wrap: (codes: CodeStore, memory: MemoryStores) => CodeStore = (codes) => codes) {
  const memory = memoryStores();
  const stores = { ...memory, codes: wrap(memory.codes, memory) };
  const queue = new MemoryJobQueue();
  const deps = { stores, queue, now: () => new Date() };
  return {
    memory,
    jobs: memory.jobs,
    queue,
    deps,
    async event(overrides = {}) {
      const event = sampleEvent(overrides);
      await memory.events.createEvent(event);
      return event;
    },
    start: (eventId: string, count: number, label = 'Door') => startCodeGeneration(deps, STARTER, eventId, { count, label }),
  };
}

/** Codes of the event, and whether any repeats. */
async function codesOf(memory: MemoryStores, eventId: string) {
  const codes = await memory.codes.listCodes(eventId);
  return { count: codes.length, unique: new Set(codes.map((code) => code.code)).size, ids: new Set(codes.map((code) => code.id)).size };
}

/** The codes port with `createCode` replaced by `create` (given the real one). */
function withCreate(create: (code: Parameters<CodeStore['createCode']>[0], real: CodeStore['createCode']) => Promise<void>) {
  return (codes: CodeStore): CodeStore =>
    new Proxy(codes, {
      get(target, name) {
        if (name === 'createCode') return (code: Parameters<CodeStore['createCode']>[0]) => create(code, (c) => target.createCode(c));
        const value = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
}

/** A codes port whose `createCode` fails while `failing(call)` says so (the n-th call, 1-based). */
function failingCreates(failing: (call: number) => boolean) {
  let calls = 0;
  return withCreate(async (code, real) => {
    if (failing(++calls)) throw new Error('injected: the table refused a write');
    return real(code);
  });
}

describe('the plan', () => {
  it('deals every code to exactly one step of one lane, lanes taking steps in turn', () => {
    for (const total of [1, 999, 1000, 1001, 4000, 4001, 10_500]) {
      const lanes = codeGenerationJob.lanes({ total, params: {} });
      expect(lanes).toBe(Math.min(GENERATION_LANES, Math.ceil(total / CODES_PER_STEP)));
      const job = { total, lanes: Array.from({ length: lanes }) } as never;
      const seen = new Array<number>(total).fill(0);
      for (let lane = 0; lane < lanes; lane++) {
        for (let step = 0; ; step++) {
          const { from, to, last } = stepCodes(job, lane, step);
          expect(to - from).toBeGreaterThan(0);
          for (let i = from; i < to; i++) seen[i]!++;
          if (last) break;
        }
      }
      expect(seen.every((times) => times === 1), `total ${total}`).toBe(true);
    }
    expect(stepCodes({ total: 4001, lanes: [{}, {}, {}, {}] } as never, 0, 1)).toEqual({ from: 4000, to: 4001, last: true });
  });

  it('derives each code from the job’s secret and its number: the same every time, unpredictable without the secret', () => {
    const seed = Buffer.alloc(32, 7);
    const code = derivedAccessCode(seed, 41, 0);
    expect(code).toMatch(new RegExp(`^[${CODE_ALPHABET}]{${CODE_LENGTH}}$`));
    expect(derivedAccessCode(seed, 41, 0)).toBe(code);
    expect(derivedAccessCode(seed, 42, 0)).not.toBe(code);
    expect(derivedAccessCode(seed, 41, 1)).not.toBe(code);
    expect(derivedAccessCode(Buffer.alloc(32, 8), 41, 0)).not.toBe(code);
  });
});

describe('a generation job', () => {
  it('may be started 10 times an hour per account, then 429 before anything is queued', async () => {
    const t = setup();
    const event = await t.event();
    for (let i = 0; i < RATE_LIMITS.generateJob.limit; i++) await t.start(event.id, 1);
    const queued = t.queue.ready.length;
    expect(await refusal(t.start(event.id, 1))).toMatchObject({ status: 429, body: { error: 'Too many generation jobs: wait an hour' } });
    expect(t.queue.ready.length).toBe(queued);
    await expect(startCodeGeneration(t.deps, { ...STARTER, name: 'manager' }, event.id, { count: 1 })).resolves.toMatchObject({ status: 'queued' });
  });

  it('makes exactly `count` unique codes, counts them on the event, and ends done with its result and audit entry', async () => {
    const t = setup();
    const event = await t.event({ tokenCount: 0 });
    await t.memory.events.addToCodeCount(event.id, 12);
    const job = await t.start(event.id, 2100);
    expect(jobView(job)).toEqual({
      id: job.id,
      kind: 'generate-codes',
      eventId: event.id,
      status: 'queued',
      done: 0,
      total: 2100,
      createdAt: job.createdAt,
      finishedAt: null,
    });
    expect(t.queue.ready.map((step) => step.message)).toEqual([0, 1, 2].map((lane) => ({ jobId: job.id, lane, step: 0 })));
    expect(await t.queue.drain(t.deps)).toEqual(['done', 'done', 'done']);
    const after = (await t.jobs.getJob(job.id))!;
    expect(after).toMatchObject({ status: 'done', done: 2100, error: null, secret: null, result: { count: 2100, label: 'Door' } });
    expect(after.finishedAt).not.toBeNull();
    expect(await codesOf(t.memory, event.id)).toEqual({ count: 2100, unique: 2100, ids: 2100 });
    expect((await t.memory.events.getEvent(event.id))!.tokenCount).toBe(2112);
    const codes = await t.memory.codes.listCodes(event.id);
    expect(codes.every((code) => code.label === 'Door' && code.createdAt === job.createdAt)).toBe(true);
    const { entries } = await t.memory.audit.listAuditEntries({ eventId: event.id, action: 'job.done', cursor: null, limit: 10 });
    expect(entries).toEqual([
      expect.objectContaining({
        actor: 'boxoffice',
        clientIp: '198.51.100.9',
        target: '2,100 codes',
        at: after.finishedAt,
        details: { jobId: job.id, kind: 'generate-codes', status: 'done', done: 2100, total: 2100 },
      }),
    ]);
  });

  it('counts exactly once when every message is delivered twice, and when workers die after their work', async () => {
    const t = setup();
    const event = await t.event();
    const job = await t.start(event.id, 5100);
    // Duplicates of every first step, delivered side by side with the originals.
    t.queue.ready.push(...t.queue.ready.map((step) => ({ ...step, message: { ...step.message } })));
    let crashes = 0;
    await t.queue.drain(t.deps, { fate: () => (crashes++ % 2 === 0 ? 'run-then-crash' : 'run') });
    expect(await t.jobs.getJob(job.id)).toMatchObject({ status: 'done', done: 5100 });
    expect(await codesOf(t.memory, event.id)).toEqual({ count: 5100, unique: 5100, ids: 5100 });
    expect((await t.memory.events.getEvent(event.id))!.tokenCount).toBe(5100);
    const { entries } = await t.memory.audit.listAuditEntries({ eventId: event.id, action: 'job.done', cursor: null, limit: 10 });
    expect(entries).toHaveLength(1);
  });

  it('commits a step cut off halfway by a failed write, and goes on from there without a duplicate or a lost code', async () => {
    // The 300th write fails: the step commits its first 275 codes (11 slices of 25); the next step makes the rest.
    const t = setup(failingCreates((call) => call === 300));
    const event = await t.event();
    const job = await t.start(event.id, 800);
    expect(await t.queue.drain(t.deps, { maxRounds: 1 })).toEqual(['done']);
    expect((await t.jobs.getJob(job.id))!).toMatchObject({ status: 'running', done: 275, lanes: [{ step: 1, cursor: '275', finished: false }] });
    const outcomes = await t.queue.drain(t.deps);
    expect(outcomes).toEqual(['done']);
    expect(await t.jobs.getJob(job.id)).toMatchObject({ status: 'done', done: 800 });
    expect(await codesOf(t.memory, event.id)).toEqual({ count: 800, unique: 800, ids: 800 });
    expect((await t.memory.events.getEvent(event.id))!.tokenCount).toBe(800);
  });

  it('sends the next step when a worker died between completing a step and sending it', async () => {
    const t = setup();
    const event = await t.event();
    const job = await t.start(event.id, 4100); // 4 lanes; lane 0 has two steps
    t.queue.refuseSends = 1;
    await t.queue.drain(t.deps);
    expect(await t.jobs.getJob(job.id)).toMatchObject({ status: 'done', done: 4100 });
    expect(await codesOf(t.memory, event.id)).toEqual({ count: 4100, unique: 4100, ids: 4100 });
    expect((await t.memory.events.getEvent(event.id))!.tokenCount).toBe(4100);
  });

  it('gives a poison step up after its tries: the job reads failed with the reason; a redrive resumes it to an exact end', async () => {
    // Every write of lane 1's step (codes number 1000 to 1999) fails until the fault is fixed.
    const poison = new Set<string>();
    const t = setup(
      withCreate(async (code, real) => {
        if (poison.has(code.code)) throw new Error('injected: the table refused a write');
        return real(code);
      }),
    );
    const event = await t.event();
    const job = await t.start(event.id, 3000);
    const seed = Buffer.from((await t.jobs.getJob(job.id))!.secret!, 'base64url');
    for (let i = 1000; i < 2000; i++) poison.add(derivedAccessCode(seed, i, 0));
    await t.queue.drain(t.deps);
    const failed = (await t.jobs.getJob(job.id))!;
    expect(failed.status).toBe('failed');
    // Every code of the lane's first slice failed, try after try: the job says so.
    expect(failed.error).toBe('25 codes could not be generated: injected: the table refused a write');
    expect(failed.done).toBe(2000);
    expect(failed.lanes.filter((lane) => lane.failed)).toHaveLength(1);
    expect(t.queue.dead).toHaveLength(1);
    // The given-up step's own codes are taken back: the codes and the count agree with `done`.
    expect(await codesOf(t.memory, event.id)).toEqual({ count: 2000, unique: 2000, ids: 2000 });
    expect((await t.memory.events.getEvent(event.id))!.tokenCount).toBe(2000);
    const ends = (action: 'job.done' | 'job.failed') =>
      t.memory.audit.listAuditEntries({ eventId: event.id, action, cursor: null, limit: 10 }).then((page) => page.entries);
    expect((await ends('job.failed')).map((entry) => entry.details)).toEqual([
      { jobId: job.id, kind: 'generate-codes', status: 'failed', done: 2000, total: 3000, error: '25 codes could not be generated: injected: the table refused a write' },
    ]);
    expect(await ends('job.done')).toEqual([]);

    poison.clear();
    t.queue.redrive();
    await t.queue.drain(t.deps);
    expect(await t.jobs.getJob(job.id)).toMatchObject({ status: 'done', done: 3000, error: null });
    expect(await codesOf(t.memory, event.id)).toEqual({ count: 3000, unique: 3000, ids: 3000 });
    expect((await t.memory.events.getEvent(event.id))!.tokenCount).toBe(3000);
    expect((await ends('job.done')).map((entry) => entry.details?.status)).toEqual(['done']);
    expect(await ends('job.failed')).toHaveLength(1);
  });

  it('gives a step up when its worker dies on every try, saying so', async () => {
    const t = setup();
    const event = await t.event();
    const job = await t.start(event.id, 10);
    await t.queue.drain(t.deps, { fate: (step) => (step.receives <= JOB_WORKER.tries ? 'crash' : 'run') });
    expect(await t.jobs.getJob(job.id)).toMatchObject({
      status: 'failed',
      done: 0,
      error: `the worker stopped (timed out or crashed) in each of ${JOB_WORKER.tries} tries`,
    });
    expect(t.queue.dead).toHaveLength(1);
  });

  it('stops when its event is deleted, leaving none of its codes behind', async () => {
    let deleteAfter = 1500;
    const t = setup((codes, memory) =>
      withCreate(async (code, real) => {
        await real(code);
        if (--deleteAfter === 0) await deleteEvent({ stores: memory, now: () => new Date() }, code.eventId);
      })(codes),
    );
    const event = await t.event();
    const job = await t.start(event.id, 5000);
    await t.queue.drain(t.deps);
    expect(await t.jobs.getJob(job.id)).toMatchObject({ status: 'failed', error: 'The event was deleted' });
    expect(t.queue.dead).toEqual([]);
    expect(await t.memory.codes.listCodes(event.id)).toEqual([]);
  });

  it('leaves no code with a stale copy of the event’s active flag when a deactivation races it', async () => {
    let deactivateAfter = 700;
    const t = setup((codes, memory) =>
      withCreate(async (code, real) => {
        await real(code);
        if (--deactivateAfter === 0) await setEventActive({ stores: memory, now: () => new Date() }, code.eventId, false);
      })(codes),
    );
    const event = await t.event();
    await t.start(event.id, 2100);
    await t.queue.drain(t.deps);
    const codes = await Promise.all((await t.memory.codes.listCodes(event.id)).map((code) => t.memory.codes.getCode(code.code)));
    expect(codes).toHaveLength(2100);
    expect(codes.filter((code) => code!.eventActive)).toEqual([]);
  });

  it('reads failed with the reason when its steps cannot be queued', async () => {
    const t = setup();
    const event = await t.event();
    t.queue.refuseSends = 1;
    await expect(t.start(event.id, 10)).rejects.toThrow('queue unreachable');
    const [job] = await t.jobs.listEventJobs(event.id, 10);
    expect(job).toMatchObject({ status: 'failed', error: 'The job could not be queued: start it again' });
  });
});

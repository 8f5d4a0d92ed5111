/**
 * Deleting a large event and revoking an event's codes by label or status as
 * background jobs, on the in-memory stores and queue: the event is gone and its
 * codes refused from the start, every code goes (or every matching code is
 * revoked, the count exact) whatever the queue does (duplicates, workers that
 * die after their work, steps cut off halfway), and nothing else is touched.
 */
import { describe, expect, it } from 'vitest';
import { startCodeRevocation } from '../../functions/domain/jobs';
import { CODES_PER_WALK_STEP, WALK_LANES } from '../../functions/domain/jobs';
import { deleteEventInBackground, deletesInline, INLINE_DELETE_CODES } from '../../functions/domain/jobs';
import { startJob } from '../../functions/domain/jobs';
import type { CodeRecord } from '../../functions/domain/records';
import { validateCode } from '../../functions/domain/access';
import { PLAYBACK_BASE_URL, refusal } from '../support/domain-fixture';
import { jobFixture } from '../support/job-fixture';
import { sampleCode } from '../support/store-records';

const STARTER = { name: 'manager', clientIp: '198.51.100.9' };

const setup = jobFixture;

/** An event with `count` codes labelled by `labelOf(i)` (its code count as the API keeps it). */
async function bigEvent(t: ReturnType<typeof setup>, count: number, labelOf: (i: number) => string = () => 'Door', more: (i: number) => Partial<CodeRecord> = () => ({})) {
  const { event } = await t.fixture.eventWithCode({ event: { tokenCount: count }, code: { label: labelOf(0), ...more(0) } });
  const at = t.fixture.now().getTime();
  for (let i = 1; i < count; i++) {
    await t.memory.codes.createCode(sampleCode(event.id, { label: labelOf(i), createdAt: new Date(at - i).toISOString(), ...more(i) }));
  }
  return event;
}

const validate = (t: ReturnType<typeof setup>, code: string) => validateCode(t.fixture.deps, { code, ip: '198.51.100.7', playbackBaseUrl: PLAYBACK_BASE_URL });

describe('deleting a large event', () => {
  it('is inline up to the documented size, a job past it', () => {
    expect(deletesInline({ tokenCount: INLINE_DELETE_CODES })).toBe(true);
    expect(deletesInline({ tokenCount: INLINE_DELETE_CODES + 1 })).toBe(false);
  });

  it('is gone and its codes refused from the answer on; the job deletes every code, session and audience entry once, whatever the deliveries', async () => {
    const t = setup();
    const event = await bigEvent(t, 6_500);
    const [watched] = await t.memory.codes.listCodes(event.id);
    await validate(t, watched!.code);
    await t.memory.audience.recordAirChange(event.id, { at: t.fixture.now().toISOString(), onAir: true });
    const job = await deleteEventInBackground(t.deps, STARTER, (await t.memory.events.getEvent(event.id))!);

    expect(job).toMatchObject({ kind: 'delete-event', eventId: event.id, status: 'queued', total: 6_500 });
    expect(job.lanes).toHaveLength(WALK_LANES);
    expect(await t.memory.events.getEvent(event.id)).toBeNull();
    expect((await t.memory.events.listEvents(100)).map((listed) => listed.id)).not.toContain(event.id);
    // As after an inline delete: the code names no event any more.
    expect(await refusal(validate(t, watched!.code))).toMatchObject({ status: 401 });
    // The edge hears of the deactivation at once, as of any deactivated event.
    const feed = await t.memory.codes.accessChangesSince(job.createdAt);
    expect(feed.events).toEqual([expect.objectContaining({ id: event.id, isActive: false })]);

    // Duplicates of every first step beside the originals, and every other worker dies after its work.
    t.queue.ready.push(...t.queue.ready.map((step) => ({ ...step, message: { ...step.message } })));
    let deliveries = 0;
    await t.queue.drain(t.deps, { fate: () => (deliveries++ % 2 === 0 ? 'run-then-crash' : 'run') });

    expect(await t.memory.jobs.getJob(job.id)).toMatchObject({ status: 'done', done: 6_500, total: 6_500 });
    expect(await t.memory.codes.listCodes(event.id)).toEqual([]);
    expect(await t.memory.codes.getCode(watched!.code)).toBeNull();
    expect(await t.memory.audience.airChanges(event.id)).toEqual([]);
    const { entries } = await t.memory.audit.listAuditEntries({ eventId: event.id, action: 'job.done', cursor: null, limit: 10 });
    expect(entries.map((entry) => [entry.target, entry.details?.status])).toEqual([["the deleted event's 6,500 codes", 'done']]);
  });

  it('carries on after a step cut off halfway, leaving no code behind', async () => {
    let calls = 0;
    const t = setup((real) => ({
      deleteCodes: async (codes: string[]) => {
        // The third batch deletes half its codes, then the table fails.
        if (++calls === 3) {
          await real.deleteCodes(codes.slice(0, codes.length / 2));
          throw new Error('injected: the table refused a write');
        }
        return real.deleteCodes(codes);
      },
    }));
    const event = await bigEvent(t, 5_200);
    const job = await deleteEventInBackground(t.deps, STARTER, (await t.memory.events.getEvent(event.id))!);
    const outcomes = await t.queue.drain(t.deps);
    expect(outcomes).toContain('retry');
    expect(await t.memory.jobs.getJob(job.id)).toMatchObject({ status: 'done', total: 5_200 });
    expect(await t.memory.codes.listCodes(event.id)).toEqual([]);
  });

  it('leaves the event as it was when the queue refuses its job, to be deleted again', async () => {
    const t = setup();
    const event = await bigEvent(t, 5_100);
    t.queue.refuseSends = 1;
    await expect(deleteEventInBackground(t.deps, STARTER, (await t.memory.events.getEvent(event.id))!)).rejects.toThrow('queue unreachable');
    expect(await t.memory.events.getEvent(event.id)).toMatchObject({ id: event.id, isActive: true });
    expect(await t.memory.codes.listCodes(event.id)).toHaveLength(5_100);
    const job = await deleteEventInBackground(t.deps, STARTER, (await t.memory.events.getEvent(event.id))!);
    await t.queue.drain(t.deps);
    expect(await t.memory.jobs.getJob(job.id)).toMatchObject({ status: 'done', done: 5_100 });
    expect(await t.memory.codes.listCodes(event.id)).toEqual([]);
  });

  it('never deletes the codes of an event that is still there (its tombstone not written)', async () => {
    const t = setup();
    const event = await bigEvent(t, 5_100);
    // The job queued, the tombstone lost: its steps are tried and given up, the codes stay.
    const job = await startJob(t.deps, { kind: 'delete-event', eventId: event.id, total: 5_100, params: {}, actor: STARTER });
    await t.queue.drain(t.deps);
    expect(await t.memory.jobs.getJob(job.id)).toMatchObject({ status: 'failed', done: 0, error: 'The event is not deleted: delete it again' });
    expect(await t.memory.codes.listCodes(event.id)).toHaveLength(5_100);
  });
});

describe('revoking codes by label or status', () => {
  const start = (t: ReturnType<typeof setup>, eventId: string, body: unknown) => startCodeRevocation(t.deps, STARTER, eventId, body);

  it('takes exactly one of label or status, and no status that is revoked already', async () => {
    const t = setup();
    const { event } = await t.fixture.eventWithCode();
    const problem = { status: 400, body: { error: 'give label or status (exactly one)' } };
    expect(await refusal(start(t, event.id, {}))).toMatchObject(problem);
    expect(await refusal(start(t, event.id, { label: 'A', status: 'unused' }))).toMatchObject(problem);
    expect(await refusal(start(t, event.id, { status: 'revoked' }))).toMatchObject({ status: 400 });
    expect(await refusal(start(t, 'nosuchevent', { label: 'A' }))).toMatchObject({ status: 404 });
    expect(t.queue.ready).toEqual([]);
  });

  it('revokes every code of the label through the one rule, counts exactly once whatever the deliveries, and touches no other code', async () => {
    const t = setup();
    // 4,000 VIP codes (20 of them revoked before the job) among 2,000 of the floor.
    const event = await bigEvent(t, 6_000, (i) => (i % 3 === 2 ? 'Floor' : 'VIP'), (i) => (i < 30 && i % 3 !== 2 ? { isRevoked: true, revokedAt: '2026-01-01T00:00:00.000Z', revokedChangedAt: '2026-01-01T00:00:00.000Z' } : {}));
    const job = await start(t, event.id, { label: 'VIP' });
    expect(job).toMatchObject({ kind: 'revoke-codes', total: 6_000, params: { label: 'VIP', filter: { label: 'VIP' } } });
    t.queue.ready.push(...t.queue.ready.map((step) => ({ ...step, message: { ...step.message } })));
    let deliveries = 0;
    await t.queue.drain(t.deps, { fate: () => (deliveries++ % 2 === 0 ? 'run-then-crash' : 'run') });

    const done = (await t.memory.jobs.getJob(job.id))!;
    expect(done).toMatchObject({ status: 'done', done: 6_000, result: { revoked: 3_980, label: 'VIP' } });
    const codes = await t.memory.codes.listCodes(event.id);
    expect(codes.filter((code) => code.label === 'VIP' && !code.isRevoked)).toEqual([]);
    expect(codes.filter((code) => code.label === 'Floor' && code.isRevoked)).toEqual([]);
    // The same rule as one revocation: counted on the event, and each code in the access feed for the edge.
    const counters = await t.memory.counters.eventCounters({ eventId: event.id, presenceSince: job.createdAt });
    expect(counters.revoked).toBe(3_980);
    const feed = await t.memory.codes.accessChangesSince(job.createdAt);
    expect(feed.codes.filter((code) => code.isRevoked)).toHaveLength(3_980);
    const floor = codes.find((code) => code.label === 'Floor')!;
    await expect(validate(t, floor.code)).resolves.toMatchObject({ playbackToken: expect.any(String) });
    const vip = codes.find((code) => code.label === 'VIP')!;
    expect(await refusal(validate(t, vip.code))).toMatchObject({ status: 403 });
  });

  it('counts exactly after a step cut off halfway by a failed revocation (its page is walked again by the next step)', async () => {
    let calls = 0;
    const t = setup((real) => ({
      setCodeRevoked: async (id: string, revoked: boolean, now: string) => {
        if (++calls === 700) throw new Error('injected: the table refused a write');
        return real.setCodeRevoked(id, revoked, now);
      },
    }));
    const event = await bigEvent(t, CODES_PER_WALK_STEP + 500, (i) => (i % 2 ? 'A' : 'B'));
    const job = await start(t, event.id, { label: 'A' });
    await t.queue.drain(t.deps);
    expect(calls).toBeGreaterThan(700);
    expect(await t.memory.jobs.getJob(job.id)).toMatchObject({ status: 'done', done: CODES_PER_WALK_STEP + 500, result: { revoked: 750, label: 'A' } });
  });

  it('keeps the event\'s revoked count exact when a step fails between a code\'s revocation and its count (the retry counts it, once)', async () => {
    const t = setup();
    const event = await bigEvent(t, CODES_PER_WALK_STEP + 500, (i) => (i % 2 ? 'A' : 'B'));
    const counters = t.memory.counters;
    let calls = 0;
    const failing = new Proxy(counters, {
      get: (target, name) => {
        const value = Reflect.get(target, name) as unknown;
        if (name !== 'countRevocation') return typeof value === 'function' ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          if (++calls === 300) throw new Error('injected: the count was refused');
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      },
    });
    const deps = { ...t.deps, stores: { ...t.deps.stores, counters: failing } };
    const job = await startCodeRevocation(deps, STARTER, event.id, { label: 'A' });
    await t.queue.drain(deps);
    // The refused count ended its step early (its page walked again by the next step), never the job.
    expect(calls).toBeGreaterThan(300);
    expect(await t.memory.jobs.getJob(job.id)).toMatchObject({ status: 'done', result: { revoked: 750, label: 'A' } });
    expect((await counters.eventCounters({ eventId: event.id, presenceSince: job.createdAt })).revoked).toBe(750);
  });

  it('revokes by status: the unused ones, and no redeemed code', async () => {
    const t = setup();
    const event = await bigEvent(t, 1_200, () => '', (i) => (i % 4 === 0 ? { redeemedAt: '2026-01-01T00:00:00.000Z', redeemedIp: '198.51.100.1' } : {}));
    const job = await start(t, event.id, { status: 'unused' });
    await t.queue.drain(t.deps);
    expect(await t.memory.jobs.getJob(job.id)).toMatchObject({ status: 'done', result: { revoked: 900, status: 'unused' } });
    const codes = await t.memory.codes.listCodes(event.id);
    expect(codes.filter((code) => code.redeemedAt && code.isRevoked)).toEqual([]);
    expect(codes.filter((code) => !code.redeemedAt && !code.isRevoked)).toEqual([]);
  });

  it('stops when its event is deleted', async () => {
    const t = setup();
    const event = await bigEvent(t, 10);
    const job = await start(t, event.id, { label: 'Door' });
    await t.memory.events.deleteEvent(event.id, t.fixture.now().toISOString());
    await t.queue.drain(t.deps);
    expect(await t.memory.jobs.getJob(job.id)).toMatchObject({ status: 'failed', error: 'The event was deleted' });
  });
});

/**
 * The trace of a leaked copy as a background job, on the in-memory stores and queue: the lanes walk
 * every code of a large event, each keeps its best session, and the verdict at the end names the
 * session whose bits the copy carries (or nobody) among all of them, whatever the queue does
 * (duplicates, workers that die after their work). The bits travel as runs; the mark key as the job's
 * secret, gone when it is done.
 */
import { describe, expect, it } from 'vitest';
import { bitRuns, momentBits, startCopyTrace, walkLanes, type MomentBit } from '../../functions/domain/jobs';
import { markBit, markKeyOf, type RecordingFiles } from '../../functions/domain/watermark';
import { refusal } from '../support/domain-fixture';
import { jobFixture } from '../support/job-fixture';
import { sampleCode } from '../support/store-records';

const STARTER = { name: 'manager', clientIp: '198.51.100.9' };
const NO_FILES: RecordingFiles = { parts: async () => [], signedUrl: async () => '' };
const SECONDS = 60;

/** An event of `count` codes, `watched` of them with a folded session each (`s<i>`, on code i). */
async function watchedEvent(t: ReturnType<typeof jobFixture>, count: number, watched: number) {
  const { event } = await t.fixture.eventWithCode({ event: { tokenCount: count } });
  const at = t.fixture.now().getTime();
  for (let i = 1; i < count; i++) await t.memory.codes.createCode(sampleCode(event.id, { label: `Row ${i % 7}`, createdAt: new Date(at - i).toISOString() }));
  const listed = await t.memory.codes.listCodes(event.id);
  for (let i = 0; i < watched; i++) {
    const code = listed[Math.floor((i * listed.length) / watched)]!;
    await t.memory.audience.foldSession(event.id, code.code, { sessionId: `s${i}`, startedAt: '2026-11-22T20:00:00.000Z', endedAt: '2026-11-22T20:30:00.000Z', device: 'VLC', quality: {} });
  }
  return { event, listed };
}

const bitsOf = (eventId: string, sessionId: string, secret: string): MomentBit[] =>
  Array.from({ length: SECONDS }, (_, index) => ({ part: 'p1', index, bit: markBit(markKeyOf(secret, eventId), sessionId, { part: 'p1', index }) }));

describe('the trace job', () => {
  it('keeps the bits as runs of consecutive moments, erasures included, and gives them back', () => {
    const bits: MomentBit[] = [
      { part: 'p2', index: 7, bit: 1 },
      { part: 'p1', index: 4, bit: 0 },
      { part: 'p1', index: 3, bit: 1 },
      { part: 'p1', index: 5, bit: null },
      { part: 'p1', index: 9, bit: 0 },
    ];
    expect(bitRuns(bits)).toEqual([['p1', 3, '10-'], ['p1', 9, '0'], ['p2', 7, '1']]);
    expect(momentBits(bitRuns(bits))).toEqual([...bits].sort((a, b) => a.part.localeCompare(b.part) || a.index - b.index));
  });

  it('names the session whose bits the copy carries among every session of a large event, once, whatever the deliveries', async () => {
    const t = jobFixture();
    const { event, listed } = await watchedEvent(t, 4_500, 400);
    const secret = t.fixture.deps.config.watermarkSecret;
    // The guilty session is on a code far down the list (another lane than the first), and the copy lost a few bits.
    const copy = bitsOf(event.id, 's333', secret).map((bit, i) => (i % 10 === 0 ? { ...bit, bit: null } : bit));
    const job = await startCopyTrace({ ...t.deps, recordingFiles: NO_FILES }, STARTER, event.id, { bits: copy });
    expect(job).toMatchObject({ kind: 'trace-copy', total: 4_500, params: { moments: SECONDS, bits: [['p1', 0, expect.stringMatching(/^-[01]{9}-/)]] } });
    expect(job.lanes).toHaveLength(walkLanes(4_500));
    expect(Buffer.from(job.secret!, 'base64url').equals(markKeyOf(secret, event.id))).toBe(true);

    t.queue.ready.push(...t.queue.ready.map((step) => ({ ...step, message: { ...step.message } })));
    let deliveries = 0;
    await t.queue.drain(t.deps, { fate: () => (deliveries++ % 2 === 0 ? 'run-then-crash' : 'run') });

    const done = (await t.memory.jobs.getJob(job.id))!;
    const guilty = listed[Math.floor((333 * listed.length) / 400)]!;
    expect(done).toMatchObject({ status: 'done', done: 4_500, secret: null });
    expect(done.result).toMatchObject({ code: guilty.code, tokenId: guilty.id, label: guilty.label, sessionId: 's333', agreements: 54, compared: 54, candidates: 400 });
    expect(done.result!.confidence).toBeGreaterThan(0.999999);
    const { entries } = await t.memory.audit.listAuditEntries({ eventId: event.id, action: 'watermark.trace', cursor: null, limit: 10 });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: 'manager', target: `…${guilty.code.slice(-4)}`, details: { jobId: job.id, bits: SECONDS, tokenId: guilty.id, candidates: 400 } });
  });

  it('names nobody for a copy no session of the event made', async () => {
    const t = jobFixture();
    const { event } = await watchedEvent(t, 1_200, 50);
    const job = await startCopyTrace({ ...t.deps, recordingFiles: NO_FILES }, STARTER, event.id, { bits: bitsOf('another-event', 's3', t.fixture.deps.config.watermarkSecret) });
    await t.queue.drain(t.deps);
    expect((await t.memory.jobs.getJob(job.id))!.result).toMatchObject({ code: null, sessionId: null, confidence: 0, compared: SECONDS, candidates: 50 });
  });

  it('is refused without a media bucket, and stops if the event is deleted meanwhile', async () => {
    const t = jobFixture();
    const { event } = await watchedEvent(t, 10, 2);
    const bits = bitsOf(event.id, 's1', t.fixture.deps.config.watermarkSecret);
    expect(await refusal(startCopyTrace({ ...t.deps, recordingFiles: null }, STARTER, event.id, { bits }))).toMatchObject({ status: 503, body: { error: 'Watermarking is not configured' } });
    expect(t.queue.ready).toEqual([]);
    const job = await startCopyTrace({ ...t.deps, recordingFiles: NO_FILES }, STARTER, event.id, { bits });
    await t.memory.events.deleteEvent(event.id, t.fixture.now().toISOString());
    await t.queue.drain(t.deps);
    expect(await t.memory.jobs.getJob(job.id)).toMatchObject({ status: 'failed', error: 'The event was deleted' });
  });
});

import { describe, expect, it } from 'vitest';
import { emptyMinute, type MinuteTally, type TroubleEntry } from '../../functions/domain/audience';
import { InvalidCursor } from '../../functions/domain/errors';
import { randomId } from '../../functions/domain/random';
import { sketchBucket } from '../../functions/domain/audience';
import { sampleCode, sampleEvent } from '../support/store-records';
import { storesForSuite, type StoreFactory } from '../support/store-under-test';

const KEEP = '2027-03-01T00:00:00.000Z';
const minute = (at: string, fields: Partial<Omit<MinuteTally, 'at'>> = {}): MinuteTally => ({ ...emptyMinute(at), ...fields });

/** The audience port, and the quality totals a heartbeat keeps on its session, on every implementation. */
export function describeAudienceStoreContract(name: string, open: StoreFactory) {
  describe(`Store audience on ${name}`, () => {
    const stores = storesForSuite(open);

    it('adds a heartbeat quality report to its session: sums added, the first start-up kept, the last bitrate and fatal error', async () => {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      const at = new Date().toISOString();
      const code = sampleCode(event.id, { session: { id: 's1', startedAt: at, heartbeatAt: at } });
      await stores.codes.createCode(code);
      const beat = { code: code.code, sessionId: 's1', now: at, staleBefore: '2000-01-01T00:00:00.000Z' };
      await stores.codes.heartbeat({ ...beat, quality: { playingMs: 20_000, stalledMs: 1_000, stalls: 1, startupMs: 900, bitrateKbps: 2500, droppedFrames: 3, errors: 0 } });
      await stores.codes.heartbeat({ ...beat, quality: { playingMs: 30_000, stalledMs: 0, stalls: 0, startupMs: 5, bitrateKbps: 800, droppedFrames: 0, errors: 2, lastFatal: 'fragLoadError', errorTypes: { fragLoadError: 1, 'MEDIA_ERR_DECODE': 1 } } });
      await stores.codes.heartbeat({ ...beat, quality: null });
      const session = (await stores.codes.getCode(code.code))!.session!;
      expect(session).toMatchObject({ playingMs: 50_000, stalledMs: 1_000, stalls: 1, startupMs: 900, bitrateKbps: 800, droppedFrames: 3, errors: 2, lastFatal: 'fragLoadError', errorTypes: { fragLoadError: 1, MEDIA_ERR_DECODE: 1 } });
      // A report without errors: the last beat's errors by name are gone.
      await stores.codes.heartbeat({ ...beat, quality: { playingMs: 30_000, stalledMs: 0, stalls: 0, droppedFrames: 0, errors: 0 } });
      expect((await stores.codes.getCode(code.code))!.session!.errorTypes).toBeUndefined();
    });

    it('keeps when the code\'s last session was released, for the audience to count a reload once', async () => {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      const at = new Date().toISOString();
      const code = sampleCode(event.id, { session: { id: 's1', startedAt: at, heartbeatAt: at } });
      await stores.codes.createCode(code);
      const endedAt = new Date(Date.parse(at) + 5_000).toISOString();
      expect(await stores.codes.releaseSession({ code: code.code, sessionId: 's1', now: endedAt })).toBe(true);
      expect(await stores.codes.getCode(code.code)).toMatchObject({ session: null, sessionEndedAt: endedAt });
    });

    it('merges minutes from many writers, keeps the sketch and the rendition mix, and reads a range', async () => {
      const eventId = randomId();
      const first = '2026-11-20T20:00:00.000Z';
      const second = '2026-11-20T20:01:00.000Z';
      await stores.audience.addMinutes(eventId, [minute(first, { viewers: 2, joins: 2, startups: new Map([[sketchBucket(800), 2]]) })], KEEP);
      await stores.audience.addMinutes(eventId, [minute(first, { viewers: 1, playingMs: 30_000, stalledMs: 500, renditions: new Map([[2500, 30_000]]) })], KEEP);
      await stores.audience.addMinutes(eventId, [minute(second, { viewers: 3, errors: 1, startups: new Map([[sketchBucket(800), 1]]), errorTypes: new Map([['fragLoadError', 1]]) })], KEEP);
      await stores.audience.addMinutes(eventId, [minute(second, { errors: 2, errorTypes: new Map([['fragLoadError', 1], ['MEDIA_ERR_DECODE', 1]]) })], KEEP);
      const read = await stores.audience.minutes(eventId, first, '2026-11-20T20:02:00.000Z');
      expect(read.map((m) => m.at)).toEqual([first, second]);
      expect(read[0]).toMatchObject({ viewers: 3, joins: 2, playingMs: 30_000, stalledMs: 500, errors: 0 });
      expect([...read[0]!.startups]).toEqual([[sketchBucket(800), 2]]);
      expect([...read[0]!.renditions]).toEqual([[2500, 30_000]]);
      expect(read[1]).toMatchObject({ viewers: 3, errors: 3 });
      expect(Object.fromEntries(read[1]!.errorTypes)).toEqual({ fragLoadError: 2, MEDIA_ERR_DECODE: 1 });
      expect(read[0]!.errorTypes.size).toBe(0);
      // `to` is exclusive.
      expect((await stores.audience.minutes(eventId, first, second)).map((m) => m.at)).toEqual([first]);
      expect(await stores.audience.minutes(randomId(), first, second)).toEqual([]);
    });

    it("folds each ended session into its ticket once, in order, and reads tickets one by one or together", async () => {
      const eventId = randomId();
      const session = (id: string, startedAt: string, quality: Record<string, number | string>, device = 'Chrome on Linux') => ({
        sessionId: id,
        startedAt,
        endedAt: new Date(Date.parse(startedAt) + 60_000).toISOString(),
        device,
        quality,
      });
      const a = session('a', '2026-11-20T20:00:00.000Z', { playingMs: 50_000, stalledMs: 10_000, stalls: 3, startupMs: 700, errors: 1 });
      const b = session('b', '2026-11-20T20:05:00.000Z', { playingMs: 2_000, errors: 1, lastFatal: 'manifestLoadError' }, 'Safari on iPhone');
      await stores.audience.foldSession(eventId, 'CODE1', a, KEEP);
      await stores.audience.foldSession(eventId, 'CODE1', a, KEEP);
      await stores.audience.foldSession(eventId, 'CODE1', b, KEEP);
      // An older session delivered late (a batch again) is not added.
      await stores.audience.foldSession(eventId, 'CODE1', a, KEEP);
      const ticket = await stores.audience.ticket(eventId, 'CODE1');
      expect(ticket).toEqual({
        eventId,
        code: 'CODE1',
        sessions: 2,
        playingMs: 52_000,
        stalledMs: 10_000,
        stalls: 3,
        errors: 2,
        droppedFrames: 0,
        startFailures: 1,
        // Session b watched 2 s: too little for its ratio to count.
        stallRatios: [0.167],
        devices: ['Chrome on Linux', 'Safari on iPhone'],
        firstWatchedAt: a.startedAt,
        lastWatchedAt: b.endedAt,
        lastFatal: 'manifestLoadError',
      });
      await stores.audience.foldSession(eventId, 'CODE2', session('c', '2026-11-20T20:00:00.000Z', {}), KEEP);
      const both = await stores.audience.tickets(eventId, ['CODE1', 'CODE2', 'NONE']);
      expect([...both.keys()].sort()).toEqual(['CODE1', 'CODE2']);
      expect(both.get('CODE2')).toMatchObject({ sessions: 1, playingMs: 0, stallRatios: [] });
      expect(await stores.audience.ticket(eventId, 'NONE')).toBeNull();
    });

    it("keeps every ended session's id on its ticket once (the tracer's candidates), read for a page of codes", async () => {
      const eventId = randomId();
      const ended = (sessionId: string, startedAt: string) => ({ sessionId, startedAt, endedAt: new Date(Date.parse(startedAt) + 60_000).toISOString(), device: 'VLC', quality: {} });
      await stores.audience.foldSession(eventId, 'CODE1', ended('s1', '2026-11-20T20:00:00.000Z'), KEEP);
      await stores.audience.foldSession(eventId, 'CODE1', ended('s1', '2026-11-20T20:00:00.000Z'), KEEP);
      await stores.audience.foldSession(eventId, 'CODE1', ended('s2-2', '2026-11-20T20:05:00.000Z'), KEEP);
      await stores.audience.foldSession(eventId, 'CODE2', ended('s3', '2026-11-20T20:01:00.000Z'), KEEP);
      await stores.audience.foldSession(randomId(), 'CODE1', ended('other', '2026-11-20T20:01:00.000Z'), KEEP);
      const ids = await stores.audience.ticketSessionIds(eventId, ['CODE1', 'CODE2', 'NONE']);
      expect(Object.fromEntries(ids)).toEqual({ CODE1: ['s1', 's2-2'], CODE2: ['s3'] });
      expect((await stores.audience.ticket(eventId, 'CODE1'))!.sessions).toBe(2);
      const many = Array.from({ length: 150 }, (_, i) => `MANY${i}`);
      await Promise.all(many.map((code, i) => stores.audience.foldSession(eventId, code, ended(`m${i}`, '2026-11-20T20:00:00.000Z'), KEEP)));
      const read = await stores.audience.ticketSessionIds(eventId, many);
      expect(read.size).toBe(150);
      expect(read.get('MANY149')).toEqual(['m149']);
    });

    it("names every session a code holds, in any slot, live or timed out, and those it ended recently", async () => {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      const at = '2026-11-20T20:00:00.000Z';
      const code = sampleCode(event.id, {
        session: { id: 'live', startedAt: at, heartbeatAt: new Date().toISOString() },
        session3: { id: 'stale-3', startedAt: at, heartbeatAt: at },
        endedSessions: [{ sessionId: 'gone', endedAt: at }, { sessionId: 'gone-2', endedAt: at, by: 'admin' }],
      });
      const idle = sampleCode(event.id);
      await stores.codes.createCode(code);
      await stores.codes.createCode(idle);
      const ids = await stores.codes.codeSessionIds([code.code, idle.code, 'NO-SUCH-CODE']);
      expect([...ids.keys()].sort()).toEqual([code.code, idle.code].sort());
      expect(ids.get(code.code)!.sort()).toEqual(['gone', 'gone-2', 'live', 'stale-3']);
      expect(ids.get(idle.code)).toEqual([]);
    });

    it('lists the trouble list by code, paged, a later mark replacing an earlier one', async () => {
      const eventId = randomId();
      const entry = (code: string, reason: TroubleEntry['reason'] = 'stalls'): TroubleEntry => ({
        eventId,
        code,
        codeId: `id-${code}`,
        label: 'door',
        reason,
        at: '2026-11-20T20:10:00.000Z',
      });
      const codes = ['K7', 'A1', 'C3', 'Z9', 'B2'];
      for (const code of codes) await stores.audience.markTrouble(entry(code), KEEP);
      await stores.audience.markTrouble(entry('C3', 'failed-start'), KEEP);
      const first = await stores.audience.troubleList(eventId, { cursor: null, limit: 2 });
      expect(first.entries.map((e) => e.code)).toEqual(['A1', 'B2']);
      const second = await stores.audience.troubleList(eventId, { cursor: first.nextCursor, limit: 2 });
      expect(second.entries).toEqual([{ ...entry('C3', 'failed-start') }, entry('K7')]);
      const last = await stores.audience.troubleList(eventId, { cursor: second.nextCursor, limit: 2 });
      expect(last).toEqual({ entries: [entry('Z9')], nextCursor: null });
      await expect(stores.audience.troubleList(randomId(), { cursor: first.nextCursor, limit: 2 })).rejects.toBeInstanceOf(InvalidCursor);
      await expect(stores.audience.troubleList(eventId, { cursor: 'nope', limit: 2 })).rejects.toBeInstanceOf(InvalidCursor);
    });

    it("keeps air marks in order and deletes everything of an event's audience with it", async () => {
      const eventId = randomId();
      const other = randomId();
      await stores.audience.recordAirChange(eventId, { at: '2026-11-20T20:30:00.000Z', onAir: false }, KEEP);
      await stores.audience.recordAirChange(eventId, { at: '2026-11-20T20:00:00.000Z', onAir: true }, KEEP);
      expect(await stores.audience.airChanges(eventId)).toEqual([
        { at: '2026-11-20T20:00:00.000Z', onAir: true },
        { at: '2026-11-20T20:30:00.000Z', onAir: false },
      ]);
      for (const id of [eventId, other]) {
        await stores.audience.addMinutes(id, [minute('2026-11-20T20:00:00.000Z', { viewers: 1 })], KEEP);
        await stores.audience.foldSession(id, 'CODE1', { sessionId: 's', startedAt: '2026-11-20T20:00:00.000Z', endedAt: '2026-11-20T20:01:00.000Z', device: 'VLC', quality: {} }, KEEP);
        await stores.audience.markTrouble({ eventId: id, code: 'CODE1', codeId: 'x', label: '', reason: 'stalls', at: '2026-11-20T20:00:00.000Z' }, KEEP);
      }
      await stores.audience.deleteEventAudience(eventId);
      expect(await stores.audience.minutes(eventId, '2026-11-20T00:00:00.000Z', '2026-11-21T00:00:00.000Z')).toEqual([]);
      expect(await stores.audience.ticket(eventId, 'CODE1')).toBeNull();
      expect((await stores.audience.troubleList(eventId, { cursor: null, limit: 10 })).entries).toEqual([]);
      expect(await stores.audience.airChanges(eventId)).toEqual([]);
      expect(await stores.audience.ticket(other, 'CODE1')).not.toBeNull();
    });
  });
}

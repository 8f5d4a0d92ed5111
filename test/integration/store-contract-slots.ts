import { describe, expect, it } from 'vitest';
import { sessionsOf, slotSessionId } from '../../functions/domain/codes';
import { CodeInUse, SessionGone } from '../../functions/domain/errors';
import { randomId } from '../../functions/domain/random';
import type { EndedSession } from '../../functions/domain/records';
import { sampleCode, sampleEvent } from '../support/store-records';
import { storesForSuite, type StoreFactory } from '../support/store-under-test';

const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();

/** A code's session slots (devices per code, session-slots.ts) on every store: each slot is claimed, beaten and released on its own. */
export function describeSlotStoreContract(name: string, open: StoreFactory) {
  describe(`Store session slots on ${name}`, () => {
    const stores = storesForSuite(open);

    async function freshCode() {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      const code = sampleCode(event.id);
      await stores.codes.createCode(code);
      return { event, code };
    }

    /** Claims slot `slot` for a new session from the code's revision `revision`; the session's id. */
    async function claim(code: string, slot: number, revision: number, opts: { heartbeatMs?: number; startedMs?: number; ended?: EndedSession[] } = {}) {
      const id = slotSessionId(randomId(), slot);
      const at = iso();
      await stores.codes.claimSession({
        code,
        expectedRevision: revision,
        session: { id, startedAt: iso(opts.startedMs ?? 0), heartbeatAt: iso(opts.heartbeatMs ?? 0) },
        endedSessions: opts.ended ?? [],
        toEdge: (opts.ended ?? []).length > 0,
        redeemed: null,
        now: at,
      });
      return id;
    }
    const beat = (code: string, sessionId: string) => stores.codes.heartbeat({ code, sessionId, now: iso(), staleBefore: iso(-60_000) });
    const listed = async (eventId: string) =>
      (await stores.codes.listEventSessions({ eventId, liveAfter: iso(-60_000), cursor: null, limit: 50 })).sessions.map((row) => row.session.id);

    it('holds one session per slot: each is beaten and released on its own, and the code is listed while one is left', async () => {
      const { event, code } = await freshCode();
      const first = await claim(code.code, 1, 0);
      const second = await claim(code.code, 2, 1);
      const stored = (await stores.codes.getCode(code.code))!;
      expect(sessionsOf(stored).map(({ slot, session }) => [slot, session.id])).toEqual([[1, first], [2, second]]);
      await beat(code.code, first);
      await beat(code.code, second);
      // A session id from another slot's number is not that slot's session.
      await expect(beat(code.code, slotSessionId(first, 3))).rejects.toBeInstanceOf(SessionGone);
      expect((await listed(event.id)).sort()).toEqual([first, second].sort());

      expect(await stores.codes.releaseSession({ code: code.code, sessionId: first, now: iso() })).toBe(true);
      await expect(beat(code.code, first)).rejects.toBeInstanceOf(SessionGone);
      await beat(code.code, second);
      expect(await listed(event.id)).toEqual([second]);
      expect(await stores.codes.releaseSession({ code: code.code, sessionId: second, now: iso() })).toBe(true);
      expect(await listed(event.id)).toEqual([]);
      expect(sessionsOf((await stores.codes.getCode(code.code))!)).toEqual([]);
    });

    it('lets exactly one of 20 concurrent claims from one revision win, whatever slot each wants', async () => {
      const { code } = await freshCode();
      const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => claim(code.code, 1 + (i % 2), 0)));
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      for (const result of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) expect(result.reason).toBeInstanceOf(CodeInUse);
      expect(sessionsOf((await stores.codes.getCode(code.code))!)).toHaveLength(1);
    });

    it('keeps a heartbeat of one slot that lands between a claim\'s read and its write on another slot', async () => {
      const { code } = await freshCode();
      const first = await claim(code.code, 1, 0, { heartbeatMs: -30_000 });
      const read = (await stores.codes.getCode(code.code))!;
      // The held write: slot 1 beats after the claimer read the code, before its claim lands.
      await beat(code.code, first);
      const beaten = (await stores.codes.getCode(code.code))!.session!.heartbeatAt;
      expect(beaten > read.session!.heartbeatAt).toBe(true);
      await claim(code.code, 2, read.revision);
      const after = (await stores.codes.getCode(code.code))!;
      expect(after.session).toMatchObject({ id: first, heartbeatAt: beaten });
      expect(after.session2).toBeTruthy();
    });

    it('takes over a timed-out slot, the session it ends in the feed, the other slot untouched', async () => {
      const since = iso(-1);
      const { code } = await freshCode();
      const live = await claim(code.code, 1, 0);
      const stale = await claim(code.code, 2, 1, { heartbeatMs: -600_000 });
      const at = iso();
      const next = await claim(code.code, 2, 2, { ended: [{ sessionId: stale, endedAt: at }] });
      const after = (await stores.codes.getCode(code.code))!;
      expect([after.session?.id, after.session2?.id]).toEqual([live, next]);
      const fed = (await stores.codes.accessChangesSince(since)).codes.find((c) => c.code === code.code);
      expect(fed?.endedSessions).toEqual([{ sessionId: stale, endedAt: at }]);
    });

    it('lists and counts every live slot of a code, passes over a timed-out one, and none of a revoked code', async () => {
      const { event, code } = await freshCode();
      const first = await claim(code.code, 1, 0);
      await claim(code.code, 2, 1, { heartbeatMs: -600_000 });
      const third = await claim(code.code, 3, 2);
      expect((await listed(event.id)).sort()).toEqual([first, third].sort());
      const other = sampleCode(event.id);
      await stores.codes.createCode(other);
      const counts = (await stores.codes.liveSessionCounts([code.code, other.code, 'NO-SUCH-CODE'], iso(-60_000)));
      expect([...counts].sort()).toEqual([[code.code, 2], [other.code, 0]].sort());
      await stores.codes.setCodeRevoked(code.id, true, iso());
      expect(await listed(event.id)).toEqual([]);
      expect((await stores.codes.liveSessionCounts([code.code], iso(-60_000))).get(code.code)).toBe(0);
    });

    it('pages the sessions of many codes of several slots each: every session once, a code\'s sessions together', async () => {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      const codes = Array.from({ length: 7 }, () => sampleCode(event.id));
      await Promise.all(codes.map((code) => stores.codes.createCode(code)));
      const claimed = new Map<string, string>();
      for (const code of codes) for (let slot = 1; slot <= 3; slot++) claimed.set(await claim(code.code, slot, slot - 1), code.code);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: Awaited<ReturnType<typeof stores.codes.listEventSessions>> = await stores.codes.listEventSessions({ eventId: event.id, liveAfter: iso(-60_000), cursor, limit: 4 });
        // At most the limit, passed only by the rest of one code's sessions.
        expect(page.sessions.length).toBeLessThanOrEqual(4 + 2);
        expect(new Set(page.sessions.map((row) => row.code)).size).toBeLessThanOrEqual(4);
        seen.push(...page.sessions.map((row) => row.session.id));
        cursor = page.nextCursor;
        pages++;
      } while (cursor && pages < 50);
      expect(cursor).toBeNull();
      expect([...seen].sort()).toEqual([...claimed.keys()].sort());
      // A code's sessions are listed side by side.
      const order = seen.map((sid) => claimed.get(sid));
      expect(order.filter((code, i) => code !== order[i - 1])).toHaveLength(codes.length);
    });

    it('lists a code where its slot-1 claim put it: a further device neither moves it nor writes the index', async () => {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      const [older, newer] = [sampleCode(event.id), sampleCode(event.id)];
      await Promise.all([older, newer].map((code) => stores.codes.createCode(code)));
      const a1 = await claim(older.code, 1, 0, { startedMs: -3000 });
      const b1 = await claim(newer.code, 1, 0, { startedMs: -2000 });
      const a2 = await claim(older.code, 2, 1, { startedMs: -1000 });
      expect(await listed(event.id)).toEqual([b1, a2, a1]);
      // Slot 1 released, slot 2 still there: the code stays listed, where it was.
      await stores.codes.releaseSession({ code: older.code, sessionId: a1, now: iso() });
      expect(await listed(event.id)).toEqual([b1, a2]);
    });

    it('denies a revoked code past the long-lived URL of any of its slots', async () => {
      const { code } = await freshCode();
      await claim(code.code, 1, 0);
      const second = await claim(code.code, 2, 1);
      const until = iso(6 * 3_600_000);
      await stores.codes.markSessionLongLived({ code: code.code, sessionId: second, until, staleBefore: iso(-60_000) });
      expect((await stores.codes.getCode(code.code))!.session2?.longLivedUntil).toBe(until);
      const { code: revoked } = await stores.codes.setCodeRevoked(code.id, true, iso());
      expect(revoked.denyUntil! >= until).toBe(true);
    });
  });
}

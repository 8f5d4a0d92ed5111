import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../functions/domain/audit';
import { InvalidCursor } from '../../functions/domain/errors';
import { randomId } from '../../functions/domain/random';
import { sampleCode, sampleEvent } from '../support/store-records';
import { storesForSuite, type StoreFactory } from '../support/store-under-test';

const at = (offsetMs: number) => new Date(Date.parse('2026-11-20T20:00:00.000Z') + offsetMs).toISOString();

/** The store methods behind the console's show-night views (audit log, live sessions), on every implementation. */
export function describeShowNightStoreContract(name: string, open: StoreFactory) {
  describe(`Store audit log and live sessions on ${name}`, () => {
    const stores = storesForSuite(open);

    const entry = (eventId: string | null, offsetMs: number, action: AuditEntry['action'] = 'code.revoke'): AuditEntry => ({
      id: randomId(20),
      at: at(offsetMs),
      action,
      actor: 'owner',
      eventId,
      target: 'ABCDEFGHJKLM',
      clientIp: '203.0.113.7',
    });

    it('keeps audit entries per event and across events, newest first, filtered and paged, with what they changed', async () => {
      const eventId = randomId();
      const keepUntil = at(400 * 86_400_000);
      const entries = [0, 1, 2, 3, 4].map((i) => entry(eventId, i * 1000, i % 2 ? 'code.unrevoke' : 'code.revoke'));
      for (const e of entries) await stores.audit.putAuditEntry(e, { eventId }, keepUntil);
      const login = entry(null, 10_000, 'admin.login');
      await stores.audit.putAuditEntry(login, 'console', keepUntil);

      const all = await stores.audit.listAuditEntries({ eventId, action: null, cursor: null, limit: 10 });
      expect(all).toEqual({ entries: [...entries].reverse(), nextCursor: null });
      const revokes = await stores.audit.listAuditEntries({ eventId, action: 'code.revoke', cursor: null, limit: 2 });
      expect(revokes.entries.map((e) => e.id)).toEqual([entries[4]!.id, entries[2]!.id]);
      const rest = await stores.audit.listAuditEntries({ eventId, action: 'code.revoke', cursor: revokes.nextCursor, limit: 2 });
      expect(rest).toEqual({ entries: [entries[0]], nextCursor: null });

      const everywhere = await stores.audit.listAuditEntries({ eventId: null, action: null, cursor: null, limit: 3 });
      expect(everywhere.entries.map((e) => e.id)).toEqual([login.id, entries[4]!.id, entries[3]!.id]);
      const next = await stores.audit.listAuditEntries({ eventId: null, action: null, cursor: everywhere.nextCursor, limit: 3 });
      expect(next.entries.map((e) => e.id)).toEqual([entries[2]!.id, entries[1]!.id, entries[0]!.id]);

      await expect(stores.audit.listAuditEntries({ eventId: randomId(), action: null, cursor: revokes.nextCursor, limit: 2 })).rejects.toBeInstanceOf(
        InvalidCursor,
      );
      await expect(stores.audit.listAuditEntries({ eventId, action: null, cursor: '!!', limit: 2 })).rejects.toBeInstanceOf(InvalidCursor);

      const changed: AuditEntry = {
        ...entry(null, 11_000, 'account.update'),
        target: 'tom',
        eventTitle: null,
        changes: { role: { from: 'box-office', to: 'stream-tech' }, disabled: { from: false, to: true } },
      };
      await stores.audit.putAuditEntry(changed, 'console', keepUntil);
      const updates = await stores.audit.listAuditEntries({ eventId: null, action: 'account.update', cursor: null, limit: 200 });
      expect(updates.entries).toContainEqual(changed);
    });

    it('lists an event live sessions newest first, paged, and ends one as an admin', async () => {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      const codes = [0, 1, 2].map(() => sampleCode(event.id, { label: 'door' }));
      const stale = sampleCode(event.id);
      for (const code of [...codes, stale]) await stores.codes.createCode(code);
      const now = Date.now();
      const claim = (code: string, sid: string, startedMs: number, heartbeatMs: number) =>
        stores.codes.claimSession({
          code,
          expectedRevision: 0,
          session: {
            id: sid,
            startedAt: new Date(now + startedMs).toISOString(),
            heartbeatAt: new Date(now + heartbeatMs).toISOString(),
            clientIp: '198.51.100.1',
            userAgent: 'VLC/3.0.20 LibVLC/3.0.20',
          },
          endedSessions: [],
          toEdge: false,
          redeemed: null,
          now: new Date(now).toISOString(),
        });
      await claim(codes[0]!.code, 'sa', -3000, 0);
      await claim(codes[1]!.code, 'sb', -2000, 0);
      await claim(codes[2]!.code, 'sc', -1000, 0);
      await claim(stale.code, 'sd', -500_000, -400_000);
      const liveAfter = new Date(now - 90_000).toISOString();

      const first = await stores.codes.listEventSessions({ eventId: event.id, liveAfter, cursor: null, limit: 2 });
      expect(first.sessions.map((s) => s.session.id)).toEqual(['sc', 'sb']);
      expect(first.sessions[0]).toMatchObject({ code: codes[2]!.code, codeId: codes[2]!.id, label: 'door' });
      expect(first.sessions[0]!.session).toMatchObject({ clientIp: '198.51.100.1', userAgent: 'VLC/3.0.20 LibVLC/3.0.20' });
      const second = await stores.codes.listEventSessions({ eventId: event.id, liveAfter, cursor: first.nextCursor, limit: 2 });
      expect(second.sessions.map((s) => s.session.id)).toEqual(['sa']);
      expect(second.nextCursor).toBeNull();

      expect(await stores.codes.releaseSession({ code: codes[1]!.code, sessionId: 'sb', now: new Date(now).toISOString(), by: 'admin' })).toBe(
        true,
      );
      expect(await stores.codes.releaseSession({ code: codes[1]!.code, sessionId: 'sb', now: new Date(now).toISOString() })).toBe(false);
      expect((await stores.codes.getCode(codes[1]!.code))!.endedSessions).toEqual([{ sessionId: 'sb', endedAt: new Date(now).toISOString(), by: 'admin' }]);
      // Ended by an admin: denied at the edge like a takeover, so it enters the access feed (a plain release does not).
      const fed = (await stores.codes.accessChangesSince(new Date(now - 60_000).toISOString())).codes.find((c) => c.code === codes[1]!.code);
      expect(fed?.endedSessions.map((e) => e.sessionId)).toEqual(['sb']);
      const after = await stores.codes.listEventSessions({ eventId: event.id, liveAfter, cursor: null, limit: 10 });
      expect(after.sessions.map((s) => s.session.id)).toEqual(['sc', 'sa']);
      await expect(stores.codes.listEventSessions({ eventId: event.id, liveAfter, cursor: 'eyJ9', limit: 2 })).rejects.toBeInstanceOf(InvalidCursor);
    });

    /** Installs a session that started and last heartbeated `startedMs` / `heartbeatMs` from `base`. */
    const claimAt = (code: { code: string; revision?: number }, sid: string, base: number, startedMs: number, heartbeatMs: number) =>
      stores.codes.claimSession({
        code: code.code,
        expectedRevision: code.revision ?? 0,
        session: { id: sid, startedAt: new Date(base + startedMs).toISOString(), heartbeatAt: new Date(base + heartbeatMs).toISOString() },
        endedSessions: [],
        toEdge: false,
        redeemed: null,
        now: new Date(base).toISOString(),
      });
    const ids = (page: { sessions: { session: { id: string } }[] }) => page.sessions.map((s) => s.session.id);

    it('lists a takeover once, as its new session, and drops released and revoked codes\' sessions', async () => {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      const [taken, released, revoked, plain] = [0, 1, 2, 3].map(() => sampleCode(event.id));
      for (const code of [taken!, released!, revoked!, plain!]) await stores.codes.createCode(code);
      const now = Date.now();
      const liveAfter = new Date(now - 90_000).toISOString();
      await claimAt(taken!, 'old-device', now, -300_000, -200_000);
      await claimAt(released!, 'released', now, -4000, 0);
      await claimAt(revoked!, 'revoked', now, -3000, 0);
      await claimAt(plain!, 'plain', now, -2000, 0);
      // The timed-out session's code is taken over by another device: one entry, the new session.
      await claimAt({ code: taken!.code, revision: 1 }, 'new-device', now, -1000, 0);
      expect(ids(await stores.codes.listEventSessions({ eventId: event.id, liveAfter, cursor: null, limit: 10 }))).toEqual([
        'new-device',
        'plain',
        'revoked',
        'released',
      ]);

      expect(await stores.codes.releaseSession({ code: released!.code, sessionId: 'released', now: new Date(now).toISOString() })).toBe(true);
      await stores.codes.setCodeRevoked(revoked!.id, true, new Date(now).toISOString());
      expect(ids(await stores.codes.listEventSessions({ eventId: event.id, liveAfter, cursor: null, limit: 10 }))).toEqual(['new-device', 'plain']);
      // Unrevoked, a session whose heartbeat is still fresh is live again.
      await stores.codes.setCodeRevoked(revoked!.id, false, new Date(now).toISOString());
      expect(ids(await stores.codes.listEventSessions({ eventId: event.id, liveAfter, cursor: null, limit: 10 }))).toEqual([
        'new-device',
        'plain',
        'revoked',
      ]);
      // Another event's listing holds none of them.
      const other = sampleEvent();
      await stores.events.createEvent(other);
      expect(await stores.codes.listEventSessions({ eventId: other.id, liveAfter, cursor: null, limit: 10 })).toEqual({ sessions: [], nextCursor: null });
    });

    it('skips sessions that timed out, a bounded number per page, without writing: they stay until their code is claimed again', async () => {
      const event = sampleEvent();
      await stores.events.createEvent(event);
      const codes = Array.from({ length: 7 }, () => sampleCode(event.id));
      for (const code of codes) await stores.codes.createCode(code);
      const now = Date.now();
      const liveAfter = new Date(now - 90_000).toISOString();
      // The oldest session is live; the six that started after it stopped heartbeating long ago.
      await claimAt(codes[0]!, 'live', now, -600_000, 0);
      for (let i = 1; i < codes.length; i++) await claimAt(codes[i]!, `gone-${i}`, now, -600_000 + i * 1000, -300_000);

      // A page of 1 passes at most a few timed-out sessions: none shown, but a cursor to go on.
      const first = await stores.codes.listEventSessions({ eventId: event.id, liveAfter, cursor: null, limit: 1 });
      expect(first.sessions).toEqual([]);
      expect(first.nextCursor).not.toBeNull();
      const rest = await stores.codes.listEventSessions({ eventId: event.id, liveAfter, cursor: first.nextCursor, limit: 1 });
      expect(ids(rest)).toEqual(['live']);
      expect(rest.nextCursor).toBeNull();
      // A listing only reads: from the top, the same page again passes the same timed-out sessions.
      expect(await stores.codes.listEventSessions({ eventId: event.id, liveAfter, cursor: null, limit: 1 })).toEqual(first);
      // A code whose session timed out can be claimed again: its entry is then the new session's.
      await claimAt({ code: codes[6]!.code, revision: 1 }, 'back', now, 0, 0);
      expect(ids(await stores.codes.listEventSessions({ eventId: event.id, liveAfter, cursor: null, limit: 5 }))).toEqual(['back', 'live']);
    });
  });
}

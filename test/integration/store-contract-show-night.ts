import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoStore } from '../../functions/adapters/dynamo-store';
import type { AuditEntry } from '../../functions/domain/audit-log';
import { InvalidCursor } from '../../functions/domain/errors';
import { randomId } from '../../functions/domain/random';
import { sampleCode, sampleEvent } from './store-contract';

const TABLE = 'stagedoor';
const at = (offsetMs: number) => new Date(Date.parse('2026-11-20T20:00:00.000Z') + offsetMs).toISOString();

/** The store methods behind the console's show-night views (audit log, live sessions), on every implementation. */
export function describeShowNightStoreContract(name: string, start: (table: string) => Promise<{ endpoint: string; close(): Promise<void> }>) {
  describe(`DynamoStore audit log and live sessions on ${name}`, () => {
    let server: { endpoint: string; close(): Promise<void> };
    let store: DynamoStore;

    beforeAll(async () => {
      server = await start(TABLE);
      const client = new DynamoDBClient({
        endpoint: server.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      store = new DynamoStore(DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }), TABLE);
    }, 90_000);
    afterAll(async () => server?.close());

    const entry = (eventId: string | null, offsetMs: number, action: AuditEntry['action'] = 'code.revoke'): AuditEntry => ({
      id: randomId(20),
      at: at(offsetMs),
      action,
      actor: 'owner',
      eventId,
      target: 'ABCDEFGHJKLM',
      clientIp: '203.0.113.7',
    });

    it('keeps audit entries per event and across events, newest first, filtered and paged, and deletes an event log', async () => {
      const eventId = randomId();
      const entries = [0, 1, 2, 3, 4].map((i) => entry(eventId, i * 1000, i % 2 ? 'code.unrevoke' : 'code.revoke'));
      for (const e of entries) await store.putAuditEntry(e, { eventId });
      const login = entry(null, 10_000, 'admin.login');
      await store.putAuditEntry(login, 'console');

      const all = await store.listAuditEntries({ eventId, action: null, cursor: null, limit: 10 });
      expect(all).toEqual({ entries: [...entries].reverse(), nextCursor: null });
      const revokes = await store.listAuditEntries({ eventId, action: 'code.revoke', cursor: null, limit: 2 });
      expect(revokes.entries.map((e) => e.id)).toEqual([entries[4]!.id, entries[2]!.id]);
      const rest = await store.listAuditEntries({ eventId, action: 'code.revoke', cursor: revokes.nextCursor, limit: 2 });
      expect(rest).toEqual({ entries: [entries[0]], nextCursor: null });

      const everywhere = await store.listAuditEntries({ eventId: null, action: null, cursor: null, limit: 3 });
      expect(everywhere.entries.map((e) => e.id)).toEqual([login.id, entries[4]!.id, entries[3]!.id]);
      const next = await store.listAuditEntries({ eventId: null, action: null, cursor: everywhere.nextCursor, limit: 3 });
      expect(next.entries.map((e) => e.id)).toEqual([entries[2]!.id, entries[1]!.id, entries[0]!.id]);

      await expect(store.listAuditEntries({ eventId: randomId(), action: null, cursor: revokes.nextCursor, limit: 2 })).rejects.toBeInstanceOf(
        InvalidCursor,
      );
      await expect(store.listAuditEntries({ eventId, action: null, cursor: '!!', limit: 2 })).rejects.toBeInstanceOf(InvalidCursor);

      await store.deleteAuditEntries(eventId);
      expect((await store.listAuditEntries({ eventId, action: null, cursor: null, limit: 10 })).entries).toEqual([]);
      const left = await store.listAuditEntries({ eventId: null, action: 'admin.login', cursor: null, limit: 200 });
      expect(left.entries.map((e) => e.id)).toContain(login.id);
    });

    it('lists an event live sessions newest first, paged, and ends one as an admin', async () => {
      const event = sampleEvent();
      await store.createEvent(event);
      const codes = [0, 1, 2].map(() => sampleCode(event.id, { label: 'door' }));
      const stale = sampleCode(event.id);
      for (const code of [...codes, stale]) await store.createCode(code);
      const now = Date.now();
      const claim = (code: string, sid: string, startedMs: number, heartbeatMs: number) =>
        store.claimSession({
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

      const first = await store.listEventSessions({ eventId: event.id, liveAfter, cursor: null, limit: 2 });
      expect(first.total).toBe(3);
      expect(first.sessions.map((s) => s.session.id)).toEqual(['sc', 'sb']);
      expect(first.sessions[0]).toMatchObject({ code: codes[2]!.code, tokenId: codes[2]!.id, label: 'door' });
      expect(first.sessions[0]!.session).toMatchObject({ clientIp: '198.51.100.1', userAgent: 'VLC/3.0.20 LibVLC/3.0.20' });
      const second = await store.listEventSessions({ eventId: event.id, liveAfter, cursor: first.nextCursor, limit: 2 });
      expect(second.sessions.map((s) => s.session.id)).toEqual(['sa']);
      expect(second.nextCursor).toBeNull();

      expect(await store.releaseSession({ code: codes[1]!.code, sessionId: 'sb', now: new Date(now).toISOString(), by: 'admin' })).toBe(
        true,
      );
      expect(await store.releaseSession({ code: codes[1]!.code, sessionId: 'sb', now: new Date(now).toISOString() })).toBe(false);
      expect((await store.getCode(codes[1]!.code))!.endedSessions).toEqual([{ sessionId: 'sb', endedAt: new Date(now).toISOString(), by: 'admin' }]);
      // Ended by an admin: denied at the edge like a takeover, so it enters the access feed (a plain release does not).
      const fed = (await store.accessChangesSince(new Date(now - 60_000).toISOString())).codes.find((c) => c.code === codes[1]!.code);
      expect(fed?.endedSessions.map((e) => e.sessionId)).toEqual(['sb']);
      const after = await store.listEventSessions({ eventId: event.id, liveAfter, cursor: null, limit: 10 });
      expect(after.sessions.map((s) => s.session.id)).toEqual(['sc', 'sa']);
      await expect(store.listEventSessions({ eventId: event.id, liveAfter, cursor: 'eyJ9', limit: 2 })).rejects.toBeInstanceOf(InvalidCursor);
    });
  });
}

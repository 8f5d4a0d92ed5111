import { describe, expect, it } from 'vitest';
import { buildRevocationFeed, endSession, heartbeat, refreshPlayback, releasePlayback, validateCode } from '../../functions/domain/access';
import { listEventCodes, sessionSlotOf, setCodeRevoked, sessionsOf, slotSessionId, slotToClaim } from '../../functions/domain/codes';
import { createEvent, eventDetails, updateEvent } from '../../functions/domain/events';
import { domainFixture, PLAYBACK_BASE_URL, refusal } from '../support/domain-fixture';
import type { Actor } from '../../functions/domain/audit';

const actor: Actor = { name: 'admin', clientIp: '192.0.2.1' };
const IN_USE = { status: 409, body: { error: 'This access code is currently in use on another device', inUse: true } };
const sidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;

/** Several devices on one code (`devicesPerCode`), on the in-memory store. */
describe('devices per code', () => {
  const validate = (f: ReturnType<typeof domainFixture>, code: string, ip = '198.51.100.7') =>
    validateCode(f.deps, { code, ip, userAgent: 'unit test', playbackBaseUrl: PLAYBACK_BASE_URL });

  it('names a slot in its session id, slot 1 plain as before slots', () => {
    expect(slotSessionId('abc', 1)).toBe('abc');
    expect(sessionSlotOf('abc')).toBe(1);
    expect(sessionSlotOf(slotSessionId('abc', 4))).toBe(4);
  });

  it('picks a free slot first, then a timed-out one, and none while N sessions beat (a lowered N counts the slots above it)', () => {
    const now = new Date('2026-11-22T20:00:00.000Z');
    const live = { id: 'a', startedAt: now.toISOString(), heartbeatAt: now.toISOString() };
    const stale = { id: 'b-2', startedAt: '2026-11-22T19:00:00.000Z', heartbeatAt: '2026-11-22T19:00:00.000Z' };
    expect(slotToClaim({ session: null }, 2, now, 90)).toEqual({ slot: 1, replaced: null });
    expect(slotToClaim({ session: live }, 2, now, 90)).toEqual({ slot: 2, replaced: null });
    expect(slotToClaim({ session: live, session2: stale }, 2, now, 90)).toEqual({ slot: 2, replaced: stale });
    expect(slotToClaim({ session: live, session2: { ...stale, heartbeatAt: now.toISOString() } }, 2, now, 90)).toBeNull();
    expect(slotToClaim({ session: null, session3: { ...live, id: 'c-3' } }, 1, now, 90)).toBeNull();
    expect(slotToClaim({ session: null, session3: { ...live, id: 'c-3' } }, 2, now, 90)).toEqual({ slot: 1, replaced: null });
  });

  it('lets N devices watch at once and refuses device N+1 with the spec\'s 409', async () => {
    const f = domainFixture();
    const { code } = await f.eventWithCode({ event: { devicesPerCode: 3 } });
    const devices = [];
    for (let i = 0; i < 3; i++) devices.push(await validate(f, code.code, `192.0.2.${i}`));
    expect(await refusal(validate(f, code.code, '192.0.2.9'))).toMatchObject(IN_USE);
    const stored = (await f.stores.codes.getCode(code.code))!;
    expect(sessionsOf(stored).map(({ slot, session }) => [slot, session.id])).toEqual(devices.map((device, i) => [i + 1, sidOf(device.playbackToken)]));
    for (const device of devices) {
      await expect(heartbeat(f.deps, device.playbackToken)).resolves.toEqual({ ok: true });
      await expect(refreshPlayback(f.deps, device.playbackToken, PLAYBACK_BASE_URL)).resolves.toMatchObject({ tokenExpiresIn: 600 });
    }
  });

  it('counts every device of a code among the event\'s active viewers', async () => {
    const f = domainFixture();
    const { event, code } = await f.eventWithCode({ event: { devicesPerCode: 3 } });
    await validate(f, code.code);
    await validate(f, code.code);
    const details = await eventDetails(f.deps, (await f.stores.events.getEvent(event.id))!, 'rtmp://ingest.example.com/live');
    expect(details.stats.activeViewers).toBe(2);
  });

  it('gives exactly N of many simultaneous validations the code', async () => {
    const f = domainFixture();
    const { code } = await f.eventWithCode({ event: { devicesPerCode: 2 } });
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => validate(f, code.code, `192.0.2.${i}`)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(2);
    for (const result of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
      expect(await refusal(Promise.reject(result.reason))).toMatchObject(IN_USE);
    }
    expect(sessionsOf((await f.stores.codes.getCode(code.code))!)).toHaveLength(2);
  });

  it('frees a slot on release, and lets a new device take over a timed-out slot but never a beating one', async () => {
    const f = domainFixture();
    const { code } = await f.eventWithCode({ event: { devicesPerCode: 2 } });
    const first = await validate(f, code.code);
    const second = await validate(f, code.code);
    await releasePlayback(f.deps, first.playbackToken);
    const third = await validate(f, code.code);
    expect(sessionSlotOf(sidOf(third.playbackToken))).toBe(1);

    // The second device stops beating; the third keeps on: the next device takes the second's slot.
    f.advance(60);
    await heartbeat(f.deps, third.playbackToken);
    f.advance(31);
    const takenOverAt = f.now().toISOString();
    const fourth = await validate(f, code.code);
    expect(sessionSlotOf(sidOf(fourth.playbackToken))).toBe(2);
    expect(await refusal(refreshPlayback(f.deps, second.playbackToken, PLAYBACK_BASE_URL))).toMatchObject({ status: 401, body: { reason: 'taken-over' } });
    await expect(refreshPlayback(f.deps, third.playbackToken, PLAYBACK_BASE_URL)).resolves.toMatchObject({ tokenExpiresIn: 600 });
    expect(await refusal(validate(f, code.code))).toMatchObject(IN_USE);
    // The edge must stop the device taken over.
    const feed = await buildRevocationFeed(f.deps, new Date(Date.parse(takenOverAt) - 1000).toISOString());
    expect(feed.endedSessions.map((ended) => ended.sessionId)).toEqual([sidOf(second.playbackToken)]);
  });

  it('applies a change of N to new validations only: lowering it cuts no device that watches', async () => {
    const f = domainFixture();
    const { event, code } = await f.eventWithCode({ event: { devicesPerCode: 3 } });
    const devices = [await validate(f, code.code), await validate(f, code.code), await validate(f, code.code)];
    await updateEvent(f.deps, actor, event.id, { devicesPerCode: 1 });
    for (const device of devices) await expect(heartbeat(f.deps, device.playbackToken)).resolves.toEqual({ ok: true });
    await releasePlayback(f.deps, devices[0]!.playbackToken);
    // Two still watch, above the new N = 1: no room until both leave.
    expect(await refusal(validate(f, code.code))).toMatchObject(IN_USE);
    await releasePlayback(f.deps, devices[1]!.playbackToken);
    expect(await refusal(validate(f, code.code))).toMatchObject(IN_USE);
    await releasePlayback(f.deps, devices[2]!.playbackToken);
    await expect(validate(f, code.code)).resolves.toMatchObject({ tokenExpiresIn: 600 });
  });

  it('ends one device on an admin\'s "End session", the others watching on; a revoke cuts them all', async () => {
    const f = domainFixture();
    const { event, code } = await f.eventWithCode({ event: { devicesPerCode: 2 } });
    const [first, second] = [await validate(f, code.code), await validate(f, code.code)];
    await endSession(f.deps, actor, event.id, { code: code.code, sessionId: sidOf(second.playbackToken) });
    expect(await refusal(heartbeat(f.deps, second.playbackToken))).toMatchObject({ status: 404, body: { reason: 'ended-by-admin' } });
    await expect(heartbeat(f.deps, first.playbackToken)).resolves.toEqual({ ok: true });
    const third = await validate(f, code.code);

    await setCodeRevoked(f.deps, actor, code.id, true);
    for (const device of [first, third]) {
      expect(await refusal(heartbeat(f.deps, device.playbackToken))).toMatchObject({ status: 403 });
      expect(await refusal(refreshPlayback(f.deps, device.playbackToken, PLAYBACK_BASE_URL))).toMatchObject({ status: 403 });
    }
  });

  it('says on the event\'s code list how many of its N slots each code uses, only for N above 1', async () => {
    const f = domainFixture();
    const { event, code } = await f.eventWithCode({ event: { devicesPerCode: 3 } });
    expect((await listEventCodes(f.deps, event.id, {})).tokens).toMatchObject([{ code: code.code, devices: { inUse: 0, of: 3 } }]);
    const first = await validate(f, code.code);
    await validate(f, code.code);
    expect((await listEventCodes(f.deps, event.id, {})).tokens).toMatchObject([{ devices: { inUse: 2, of: 3 } }]);
    await releasePlayback(f.deps, first.playbackToken);
    f.advance(91);
    expect((await listEventCodes(f.deps, event.id, {})).tokens).toMatchObject([{ devices: { inUse: 0, of: 3 } }]);
    const single = await f.eventWithCode();
    expect((await listEventCodes(f.deps, single.event.id, {})).tokens[0]).not.toHaveProperty('devices');
  });

  it('gives each device of a code its own twelve refreshes an hour (the spec\'s limit per code, for each slot)', async () => {
    const f = domainFixture();
    const { code } = await f.eventWithCode({ event: { devicesPerCode: 2 } });
    const latest = [(await validate(f, code.code)).playbackToken, (await validate(f, code.code)).playbackToken];
    for (let i = 0; i < 12; i++) {
      f.advance(60);
      for (const device of [0, 1]) {
        await heartbeat(f.deps, latest[device]!);
        latest[device] = (await refreshPlayback(f.deps, latest[device]!, PLAYBACK_BASE_URL)).playbackToken;
      }
    }
    for (const token of latest) expect(await refusal(refreshPlayback(f.deps, token, PLAYBACK_BASE_URL))).toMatchObject({ status: 429 });
  });

  it('takes devicesPerCode 1 to 5, 1 by default, and refuses anything else naming the field', async () => {
    const f = domainFixture();
    const body = { title: 'Show', startsAt: '2026-12-01T20:00:00.000Z', endsAt: '2026-12-01T22:00:00.000Z' };
    expect(await createEvent(f.deps, actor, body)).toMatchObject({ devicesPerCode: 1 });
    const five = await createEvent(f.deps, actor, { ...body, devicesPerCode: 5 });
    expect(five).toMatchObject({ devicesPerCode: 5 });
    for (const bad of [0, 6, 2.5, '2', null]) {
      expect(await refusal(createEvent(f.deps, actor, { ...body, devicesPerCode: bad }))).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^devicesPerCode: /) } });
      expect(await refusal(updateEvent(f.deps, actor, five.id, { devicesPerCode: bad }))).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^devicesPerCode: /) } });
    }
    expect(await updateEvent(f.deps, actor, five.id, { devicesPerCode: 2 })).toMatchObject({ devicesPerCode: 2 });
    const { entries } = await f.stores.audit.listAuditEntries({ eventId: five.id, action: 'event.update', cursor: null, limit: 10 });
    expect(entries[0]!.changes).toEqual({ devicesPerCode: { from: 5, to: 2 } });
  });
});

import { describe, expect, it } from 'vitest';
import { signPlaybackToken } from '../../functions/domain/access';
import { buildRevocationFeed } from '../../functions/domain/access';
import { endSession } from '../../functions/domain/access';
import { heartbeat, refreshPlayback, releasePlayback, validateCode } from '../../functions/domain/access';
import { setEventActive } from '../../functions/domain/codes';
import { actor, domainFixture, PLAYBACK_BASE_URL, refusal, type DomainFixture } from '../support/domain-fixture';

const refresh = (f: DomainFixture, token: string | null) => refreshPlayback(f.deps, token, PLAYBACK_BASE_URL);
const invalidToken = { status: 401, body: { error: 'Valid playback token required' } };
const revoked = { status: 403, body: { error: 'Access has been revoked' } };

/** A viewer's session after validation: refresh, heartbeat and release, on the in-memory store. */
describe('refreshing a playback JWT', () => {
  it('issues a new JWT for the live session, twelve times an hour per code', async () => {
    const f = domainFixture();
    const { token } = await f.watching();
    let latest = token;
    for (let i = 0; i < 12; i++) {
      f.advance(60);
      await heartbeat(f.deps, latest);
      ({ playbackToken: latest } = await refresh(f, latest));
    }
    const limited = await refusal(refresh(f, latest));
    expect(limited).toMatchObject({ status: 429, body: { error: 'Too many refresh requests' } });
    expect(limited.headers['retry-after']).toBe(String(3600 - 12 * 60));
  });

  it('refuses a token that is not a playback JWT of ours, or has expired', async () => {
    const f = domainFixture();
    const { event, code, token, sessionId } = await f.watching();
    expect(await refusal(refresh(f, null))).toMatchObject(invalidToken);
    expect(await refusal(refresh(f, `${token}x`))).toMatchObject(invalidToken);
    const preview = await signPlaybackToken({ code: code.code, eventId: event.id, sessionId, preview: true }, f.deps.config.signingKeys, f.now());
    expect(await refusal(refresh(f, preview.token))).toMatchObject(invalidToken);
    f.advance(600);
    expect(await refusal(refresh(f, token))).toMatchObject({ status: 410, body: { error: 'Access has expired' } });
  });

  it('refuses a revoked code, a deactivated event and access past its window', async () => {
    const f = domainFixture();
    const { event, code, token } = await f.watching();
    await f.stores.codes.setCodeRevoked(code.id, true, f.now().toISOString());
    expect(await refusal(refresh(f, token))).toMatchObject({ ...revoked, body: { ...revoked.body, reason: 'revoked' } });
    await f.stores.codes.setCodeRevoked(code.id, false, f.now().toISOString());
    await setEventActive(f.deps, event.id, false);
    // One status and text for both; the reason tells the player which.
    expect(await refusal(refresh(f, token))).toMatchObject({ ...revoked, body: { ...revoked.body, reason: 'event-inactive' } });
    await setEventActive(f.deps, event.id, true);
    await f.stores.events.updateEvent(event.id, { endsAt: '2026-11-21T20:00:00.000Z' }, f.now().toISOString());
    expect(await refusal(refresh(f, token))).toMatchObject({ status: 410, body: { error: 'Access has expired' } });
  });

  it('refuses a session that timed out, and tells the player when an organiser ended it', async () => {
    const f = domainFixture();
    const { event, code, token, sessionId } = await f.watching();
    await endSession(f.deps, actor(), event.id, { code: code.code, sessionId });
    expect((await refusal(refresh(f, token))).body).toEqual({ ...invalidToken.body, reason: 'ended-by-admin', endedBy: 'admin' });

    const other = await f.watching();
    f.advance(91);
    expect((await refusal(refresh(f, other.token))).body).toEqual({ ...invalidToken.body, reason: 'session-ended' });
  });
});

describe('keeping a session alive by heartbeat', () => {
  it('keeps it live past the timeout', async () => {
    const f = domainFixture();
    const { code, token } = await f.watching();
    for (let i = 0; i < 5; i++) {
      f.advance(80);
      await expect(heartbeat(f.deps, token)).resolves.toEqual({ ok: true });
    }
    expect((await f.stores.codes.getCode(code.code))!.session!.heartbeatAt).toBe(f.now().toISOString());
  });

  it("keeps the seat whatever the player's report: a malformed qoe is dropped and told, the beat counts", async () => {
    const f = domainFixture();
    const told: Array<[string, { field: string; problem: string }]> = [];
    const deps = { ...f.deps, droppedReports: { dropped: (sessionId: string, report: { field: string; problem: string }) => told.push([sessionId, report]) } };
    const { code, token, sessionId } = await f.watching();
    for (let i = 0; i < 3; i++) {
      f.advance(80);
      await expect(heartbeat(deps, token, { qoe: { playingMs: 'lots', stalls: 4 } })).resolves.toEqual({ ok: true });
    }
    f.advance(80);
    // Past the 90 s timeout of the validation: only the beats kept the session, so another device is still refused.
    await expect(heartbeat(deps, token, { qoe: 'not an object' })).resolves.toEqual({ ok: true });
    const other = await refusal(validateCode(f.deps, { code: code.code, ip: '198.51.100.8', playbackBaseUrl: PLAYBACK_BASE_URL }));
    expect(other).toMatchObject({ status: 409, body: { inUse: true } });
    const session = (await f.stores.codes.getCode(code.code))!.session!;
    expect(session.heartbeatAt).toBe(f.now().toISOString());
    // Not applied: nothing of the dropped reports reached the session's totals.
    expect(session.stalls).toBeUndefined();
    expect(session.playingMs).toBeUndefined();
    expect(told).toEqual([
      [sessionId, { field: 'qoe.playingMs', problem: 'must be a number' }],
      [sessionId, { field: 'qoe.playingMs', problem: 'must be a number' }],
      [sessionId, { field: 'qoe.playingMs', problem: 'must be a number' }],
      [sessionId, { field: 'qoe', problem: 'must be an object' }],
    ]);
  });

  it('answers 404 once the session is gone, 403 once access is revoked, 401 for a bad or expired token', async () => {
    const f = domainFixture();
    const { event, code, token } = await f.watching();
    await setEventActive(f.deps, event.id, false);
    expect(await refusal(heartbeat(f.deps, token))).toMatchObject(revoked);
    await setEventActive(f.deps, event.id, true);
    await f.stores.codes.setCodeRevoked(code.id, true, f.now().toISOString());
    expect(await refusal(heartbeat(f.deps, token))).toMatchObject(revoked);
    await f.stores.codes.setCodeRevoked(code.id, false, f.now().toISOString());
    await heartbeat(f.deps, token);

    f.advance(91);
    expect(await refusal(heartbeat(f.deps, token))).toMatchObject({ status: 404, body: { error: 'Session not found' } });
    expect(await refusal(heartbeat(f.deps, 'not.a.jwt'))).toMatchObject(invalidToken);
    f.advance(600);
    expect(await refusal(heartbeat(f.deps, token))).toMatchObject(invalidToken);
  });
});

describe('releasing a session', () => {
  it('frees the code at once for another device, without a trace in the feed', async () => {
    const f = domainFixture();
    const { event, code, token } = await f.watching();
    const since = f.now().toISOString();
    await expect(releasePlayback(f.deps, token)).resolves.toEqual({ released: true });
    await expect(releasePlayback(f.deps, token)).resolves.toEqual({ released: true });
    expect((await f.stores.codes.getCode(code.code))!).toMatchObject({ session: null, endedSessions: [] });
    expect(await refusal(refresh(f, token))).toMatchObject(invalidToken);
    expect(await f.stores.counters.eventCounters({ eventId: event.id, presenceSince: since })).toMatchObject({ presence: 0 });
    await expect(validateCode(f.deps, { code: code.code, ip: '203.0.113.9', playbackBaseUrl: PLAYBACK_BASE_URL })).resolves.toBeTruthy();
    expect((await buildRevocationFeed(f.deps, since)).endedSessions).toEqual([]);
  });

  it('accepts an expired but genuine token for its own session, and nothing else', async () => {
    const f = domainFixture();
    const { code, token } = await f.watching();
    f.advance(30 * 60);
    await expect(releasePlayback(f.deps, token)).resolves.toEqual({ released: true });
    expect((await f.stores.codes.getCode(code.code))!.session).toBeNull();
    expect(await refusal(releasePlayback(f.deps, null))).toMatchObject(invalidToken);
  });

  it('puts the end of a session holding a long-lived URL in the feed until that URL expires', async () => {
    const f = domainFixture();
    const { code, token, sessionId } = await f.watching();
    const until = '2026-11-22T23:00:00.000Z';
    await f.stores.codes.markSessionLongLived({ code: code.code, sessionId, until, staleBefore: f.now().toISOString() });
    const since = f.now().toISOString();
    await releasePlayback(f.deps, token);
    expect((await buildRevocationFeed(f.deps, since)).endedSessions).toEqual([
      { sessionId, code: code.code, endedAt: since, longLivedUntil: until, until },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { buildRevocationFeed } from '../../functions/domain/access';
import { heartbeat, refreshPlayback, validateCode } from '../../functions/domain/access';
import { sampleCode } from '../support/store-records';
import { setEventActive } from '../../functions/domain/codes';
import { domainFixture, PLAYBACK_BASE_URL, refusal } from '../support/domain-fixture';

/** Code validation's rules on the in-memory store: one device per code, takeover, refusals, the failed-attempt limit. */
describe('validating an access code', () => {
  const validate = (f: ReturnType<typeof domainFixture>, code: unknown, ip = '198.51.100.7') =>
    validateCode(f.deps, { code, ip, userAgent: 'unit test', playbackBaseUrl: PLAYBACK_BASE_URL });

  it('trades a code, typed in any case, for a playback session on it and a JWT', async () => {
    const f = domainFixture();
    const { event, code } = await f.eventWithCode({ event: { title: 'Concert' } });
    const granted = await validate(f, `  ${code.code.toLowerCase()} `);
    expect(granted).toMatchObject({
      event: { title: 'Concert', isLive: false },
      playbackBaseUrl: PLAYBACK_BASE_URL,
      streamPath: `/streams/${event.id}/`,
      expiresAt: '2026-11-23T21:00:00.000Z',
      tokenExpiresIn: 600,
    });
    const stored = (await f.stores.codes.getCode(code.code))!;
    expect(stored.session).toMatchObject({ startedAt: f.now().toISOString(), clientIp: '198.51.100.7', userAgent: 'unit test' });
    expect(stored).toMatchObject({ redeemedAt: f.now().toISOString(), redeemedIp: '198.51.100.7', revision: 1 });
    expect(await f.stores.counters.eventCounters({ eventId: event.id, presenceSince: f.now().toISOString() })).toEqual({ redeemed: 1, revoked: 0, presence: 1 });
  });

  it('keeps a code on one device while it beats, and lets another take over once it stops', async () => {
    const f = domainFixture();
    const { code } = await f.eventWithCode();
    const first = await validate(f, code.code);
    f.advance(60);
    await heartbeat(f.deps, first.playbackToken);
    f.advance(60);
    expect(await refusal(validate(f, code.code, '203.0.113.9'))).toMatchObject({
      status: 409,
      body: { error: 'This access code is currently in use on another device', inUse: true },
    });

    // 90 s without a heartbeat: the session no longer blocks the code.
    f.advance(31);
    const takenOverAt = f.now().toISOString();
    const second = await validate(f, code.code, '203.0.113.9');
    const firstSession = JSON.parse(Buffer.from(first.playbackToken.split('.')[1]!, 'base64url').toString()).sid as string;
    expect((await f.stores.codes.getCode(code.code))!.endedSessions).toEqual([{ sessionId: firstSession, endedAt: takenOverAt }]);
    expect(await refusal(refreshPlayback(f.deps, first.playbackToken, PLAYBACK_BASE_URL))).toMatchObject({
      status: 401,
      body: { error: 'Valid playback token required', reason: 'taken-over' },
    });
    await expect(refreshPlayback(f.deps, second.playbackToken, PLAYBACK_BASE_URL)).resolves.toMatchObject({ tokenExpiresIn: 600 });

    // The edge must stop the first device: the takeover is in the feed until its last JWT has expired.
    const feed = await buildRevocationFeed(f.deps, new Date(Date.parse(takenOverAt) - 1000).toISOString());
    expect(feed.endedSessions).toEqual([{ sessionId: firstSession, code: code.code, endedAt: takenOverAt, until: '2026-11-22T20:12:31.000Z' }]);
  });

  it('gives exactly one of many simultaneous validations the code', async () => {
    const f = domainFixture();
    const { code } = await f.eventWithCode();
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => validate(f, code.code, `192.0.2.${i}`)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    for (const result of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
      expect((await refusal(Promise.reject(result.reason))).status).toBe(409);
    }
  });

  it('refuses revoked, then deactivated, then expired access, in that order', async () => {
    const f = domainFixture();
    const { event, code } = await f.eventWithCode({ code: { isRevoked: true }, event: { isActive: false } });
    expect(await refusal(validate(f, code.code))).toMatchObject({ status: 403, body: { error: 'Access code has been revoked' } });
    await f.stores.codes.setCodeRevoked(code.id, false, f.now().toISOString());
    expect(await refusal(validate(f, code.code))).toMatchObject({ status: 403, body: { error: 'This event is not currently available' } });
    await setEventActive(f.deps, event.id, true);
    // Codes work until `accessWindowHours` (24) after the event's end (an hour from now).
    f.advance(25 * 3600 - 1);
    await expect(validate(f, code.code)).resolves.toMatchObject({ expiresAt: '2026-11-23T21:00:00.000Z' });
    f.advance(1);
    expect(await refusal(validate(f, code.code))).toMatchObject({ status: 410, body: { error: 'Access code has expired' } });
  });

  it('refuses malformed and unknown codes', async () => {
    const f = domainFixture();
    for (const bad of [undefined, '', 'ABC-123', 42, 'A'.repeat(65)]) {
      expect(await refusal(validate(f, bad, `192.0.2.${String(bad).length}`))).toMatchObject({ status: 400, body: { error: 'Access code is required' } });
    }
    expect(await refusal(validate(f, 'NOSUCHCODE12'))).toMatchObject({ status: 401, body: { error: 'Invalid access code' } });
  });

  it('slows guessing: five failed attempts a minute per address, then every validation from it waits', async () => {
    const f = domainFixture();
    const { code } = await f.eventWithCode();
    for (let i = 0; i < 4; i++) expect((await refusal(validate(f, `WRONGCODE${i}`))).status).toBe(401);
    expect((await refusal(validate(f, '!'))).status).toBe(400);
    f.advance(20);
    const limited = await refusal(validate(f, code.code));
    expect(limited).toMatchObject({ status: 429, body: { error: 'Too many requests. Please try again later.' } });
    expect(limited.headers['retry-after']).toBe('40');
    // Another address is not held back, and the next minute the window is empty again.
    await expect(validate(f, code.code, '198.51.100.8')).resolves.toMatchObject({ tokenExpiresIn: 600 });
    const { code: other } = await f.eventWithCode();
    f.advance(40);
    await expect(validate(f, other.code)).resolves.toMatchObject({ tokenExpiresIn: 600 });
  });

  it('does not count honest validations, refused or not, against the address', async () => {
    const f = domainFixture();
    const { event, code: first } = await f.eventWithCode();
    const codes = [first, ...Array.from({ length: 7 }, () => sampleCode(event.id))];
    for (const code of codes.slice(1)) await f.stores.codes.createCode(code);
    for (const code of codes) await validate(f, code.code, '100.64.0.1');
    for (const code of codes) expect((await refusal(validate(f, code.code, '100.64.0.1'))).status).toBe(409);
    await expect(f.stores.counters.rateLimitRetryAfter({ key: 'validate#100.64.0.1', limit: 1, windowSeconds: 60, now: f.now() })).resolves.toBeNull();
  });

  it('counts an IPv6 address with the rest of its /64', async () => {
    const f = domainFixture();
    const { code } = await f.eventWithCode();
    for (let i = 1; i <= 5; i++) expect((await refusal(validate(f, 'WRONGCODE1', `2001:db8:1:2::${i}`))).status).toBe(401);
    expect((await refusal(validate(f, code.code, '2001:db8:1:2:ffff::1'))).status).toBe(429);
    await expect(validate(f, code.code, '2001:db8:1:3::1')).resolves.toMatchObject({ tokenExpiresIn: 600 });
  });
});

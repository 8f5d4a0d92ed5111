import { describe, expect, it } from 'vitest';
import { addressWithoutCode, codeFormatProblem, normalizeCode, refusalEndsCode, validateErrorMessage } from '../../web/src/viewer/access-code';
import { accessLossFor, lostRenewal } from '../../web/src/viewer/access-loss';
import {
  eventIdFromStreamPath,
  liveSyncSeconds,
  manifestUrl,
  refreshDelayMs,
  refreshRetryDelayMs,
  statusPollDelayMs,
} from '../../web/src/viewer/timing';

describe('access codes as typed', () => {
  it('upper-cases and drops spaces and dashes', () => {
    expect(normalizeCode(' abcd-efgh jkmn ')).toBe('ABCDEFGHJKMN');
    expect(normalizeCode('ab\tcd')).toBe('ABCD');
  });

  it('asks for a code when empty and refuses other characters before calling the API', () => {
    expect(codeFormatProblem('')).toMatch(/enter the access code/i);
    expect(codeFormatProblem('ABC!DEF')).toMatch(/only letters and numbers/i);
    expect(codeFormatProblem('ABCDEFGHJKMN')).toBeNull();
  });
});

describe('the address bar after a link with ?code=', () => {
  it('drops the code and keeps the rest', () => {
    expect(addressWithoutCode('https://watch.example/?code=ABCD&lang=de#top')).toBe('/?lang=de#top');
    expect(addressWithoutCode('https://watch.example/show/?code=ABCD')).toBe('/show/');
  });

  it('leaves an address without a code alone', () => {
    expect(addressWithoutCode('https://watch.example/?lang=de')).toBeNull();
  });
});

describe('validate error messages', () => {
  // Status and `reason` as the API answers (docs/api.md).
  const cases: [number, string | undefined, RegExp][] = [
    [400, undefined, /enter the access code/i],
    [401, undefined, /isn't valid/i],
    [403, 'revoked', /has been revoked/i],
    [403, 'event-inactive', /not available/i],
    [409, undefined, /in use on another device/i],
    [410, 'expired', /has expired/i],
    [429, undefined, /too many tries/i],
    [0, undefined, /couldn't reach/i],
    [500, undefined, /went wrong/i],
  ];
  it.each(cases)('%i %s', (status, reason, expected) => {
    expect(validateErrorMessage(status, reason)).toMatch(expected);
  });

  it('gives each spec error its own message', () => {
    const messages = cases.map(([status, reason]) => validateErrorMessage(status, reason));
    expect(new Set(messages).size).toBe(messages.length);
  });

  it('branches on the reason, never on the error text', () => {
    expect(validateErrorMessage(403, undefined)).toMatch(/not available/i);
    expect(validateErrorMessage(403, 'Access code has been revoked')).toMatch(/not available/i);
    expect(validateErrorMessage(403, 'geo')).toBe('This event is not available in your country.');
    expect(refusalEndsCode(403, 'geo')).toBe(false);
  });
});

describe('refusals that end the code for good (a saved copy is forgotten)', () => {
  it('are an unknown, revoked or expired code, not a code in use, an unavailable event or a failure', () => {
    expect([refusalEndsCode(401), refusalEndsCode(403, 'revoked'), refusalEndsCode(410, 'expired')]).toEqual([true, true, true]);
    expect([refusalEndsCode(409), refusalEndsCode(403, 'event-inactive'), refusalEndsCode(429), refusalEndsCode(0), refusalEndsCode(500)]).toEqual([
      false, false, false, false, false,
    ]);
  });

  it('during playback: a revoked or expired code, not an ended viewing or an unavailable event', () => {
    expect(accessLossFor(403, 'revoked')?.codeEnded).toBe(true);
    expect(accessLossFor(410, 'expired')?.codeEnded).toBe(true);
    for (const [status, reason] of [[403, 'event-inactive'], [403, undefined], [401, 'taken-over'], [404, 'session-ended']] as const) {
      expect(accessLossFor(status, reason)?.codeEnded, `${status} ${reason}`).toBeFalsy();
    }
  });
});

describe('access loss during playback', () => {
  it('maps refresh, heartbeat and media refusals by their reason', () => {
    expect(accessLossFor(403, 'revoked')?.title).toBe('Access revoked');
    expect(accessLossFor(403, 'event-inactive')?.title).toBe('Event unavailable');
    expect(accessLossFor(403, 'geo')).toEqual({ title: 'Not available in your country', message: 'This event is not available in your country, so playback has stopped.', accessOver: true });
    // The media server's 403 has no reason.
    expect(accessLossFor(403)?.title).toBe('Access denied');
    expect(accessLossFor(401, 'ended-by-admin')).toMatchObject({ title: 'Session ended', message: expect.stringMatching(/organiser ended/) });
    expect(accessLossFor(404, 'ended-by-admin')?.message).toMatch(/organiser ended/);
    expect(accessLossFor(401, 'taken-over')?.title).toBe('Watching on another device');
    expect(accessLossFor(404, 'taken-over')?.message).toMatch(/another device/);
    expect(accessLossFor(401, 'session-ended')?.title).toBe('Playback stopped');
    expect(accessLossFor(401, 'invalid-token')?.message).toMatch(/enter your access code again/i);
    // One thing said: a viewing that ended leaves the code working, a revoked or expired code does not.
    for (const [status, reason] of [[401, 'ended-by-admin'], [404, 'ended-by-admin'], [401, 'taken-over'], [404, 'session-ended']] as const) {
      expect(accessLossFor(status, reason)?.accessOver, `${status} ${reason}`).toBe(false);
    }
    for (const [status, reason] of [[403, 'revoked'], [403, 'event-inactive'], [410, 'expired']] as const) {
      expect(accessLossFor(status, reason)?.accessOver, `${status} ${reason}`).toBe(true);
    }
    expect(accessLossFor(410, 'expired')?.title).toBe('Access expired');
    expect(accessLossFor(404, 'session-ended')?.title).toBe('Session ended');
  });

  it('treats network failures, 5xx and rate limits as transient', () => {
    expect(accessLossFor(0)).toBeNull();
    expect(accessLossFor(502, 'Bad gateway')).toBeNull();
    expect(accessLossFor(429, 'Too many refresh requests')).toBeNull();
  });

  it('explains a renewal that ran out of time', () => {
    expect(lostRenewal(429).message).toMatch(/too many refresh requests/i);
    expect(lostRenewal(0).title).toBe('Connection lost');
  });
});

describe('timing', () => {
  it('holds two segments back, as long as the newest ones: a long first segment or an earlier encoder stops counting', () => {
    expect(liveSyncSeconds([1, 1, 1.001, 1])).toBeCloseTo(2.002);
    expect(liveSyncSeconds([1.999, 1, 1, 1])).toBe(2);
    expect(liveSyncSeconds([1.999, 1, 1])).toBe(3.998);
    expect(liveSyncSeconds([8.333, 8.333, 8.333, 1, 1, 1])).toBe(2);
    expect(liveSyncSeconds([8.333, 8.333])).toBeCloseTo(16.666);
    expect(liveSyncSeconds([])).toBeUndefined();
  });

  it('refreshes at 80 % of the token lifetime', () => {
    expect(refreshDelayMs(600)).toBe(480_000);
    expect(refreshDelayMs(0)).toBe(1_000);
  });

  it('backs off refresh retries but always retries before expiry', () => {
    const now = 1_000_000;
    const expires = now + 120_000;
    expect(refreshRetryDelayMs(1, 0, now, expires)).toBe(5_000);
    expect(refreshRetryDelayMs(2, 503, now, expires)).toBe(10_000);
    expect(refreshRetryDelayMs(9, 0, now, expires)).toBe(60_000);
    expect(refreshRetryDelayMs(1, 429, now, expires)).toBe(60_000);
    expect(refreshRetryDelayMs(1, 429, now, now + 20_000)).toBe(18_000);
    expect(refreshRetryDelayMs(1, 0, now, now + 900)).toBeNull();
  });

  it('polls event status rarely when far, every 5 s near the start and after it', () => {
    expect(statusPollDelayMs(3 * 3_600_000)).toBe(60_000);
    expect(statusPollDelayMs(30 * 60_000)).toBe(30_000);
    expect(statusPollDelayMs(3 * 60_000)).toBe(10_000);
    expect(statusPollDelayMs(30_000)).toBe(5_000);
    expect(statusPollDelayMs(-60_000)).toBe(5_000);
  });

  it('reads the event id from the stream path and builds the entry playlist URL', () => {
    expect(eventIdFromStreamPath('/streams/ev123/')).toBe('ev123');
    expect(eventIdFromStreamPath('/other/ev123/')).toBeNull();
    expect(manifestUrl('http://127.0.0.1:4000', '/streams/ev123/')).toBe('http://127.0.0.1:4000/streams/ev123/index.m3u8');
    expect(manifestUrl('https://cdn.example/', 'streams/ev123')).toBe('https://cdn.example/streams/ev123/index.m3u8');
  });
});

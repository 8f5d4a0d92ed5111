import { describe, expect, it } from 'vitest';
import { endedSessionsAfter, sessionDenyUntil } from '../../functions/domain/access';
import { PLAYBACK_TOKEN_TTL_SECONDS } from '../../functions/domain/playback-claims';

/** `endedSessionsAfter` is the one owner of a code's ended sessions: what is kept, what is added, what reaches the edge. */
const now = '2026-11-21T12:00:00.000Z';
const minutesAgo = (m: number) => new Date(Date.parse(now) - m * 60_000).toISOString();
const session = { id: 'sid-now', startedAt: minutesAgo(30), heartbeatAt: minutesAgo(1) };
const stale = { sessionId: 'sid-stale', endedAt: minutesAgo(PLAYBACK_TOKEN_TTL_SECONDS / 60 + 1) };
const recent = { sessionId: 'sid-recent', endedAt: minutesAgo(1) };

describe('endedSessionsAfter', () => {
  it('drops what the edge may forget and denies a taken-over session', () => {
    expect(sessionDenyUntil(stale) < now).toBe(true);
    expect(endedSessionsAfter({ endedSessions: [stale, recent] }, session, 'takeover', now)).toEqual({
      endedSessions: [recent, { sessionId: 'sid-now', endedAt: now }],
      toEdge: true,
    });
  });

  it('only tidies the list when a claim finds the code free', () => {
    expect(endedSessionsAfter({ endedSessions: [stale, recent] }, null, 'takeover', now)).toEqual({ endedSessions: [recent], toEdge: false });
  });

  it('forgets a plain release: its short JWT simply expires', () => {
    expect(endedSessionsAfter({ endedSessions: [] }, session, 'release', now)).toEqual({ endedSessions: [], toEdge: false });
    const expiredUrl = { ...session, longLivedUntil: minutesAgo(1) };
    expect(endedSessionsAfter({ endedSessions: [] }, expiredUrl, 'release', now).toEdge).toBe(false);
  });

  it('keeps a released session that holds a valid long-lived URL until that URL expires', () => {
    const longLivedUntil = '2026-11-21T18:00:00.000Z';
    const change = endedSessionsAfter({ endedSessions: [] }, { ...session, longLivedUntil }, 'release', now);
    expect(change).toEqual({ endedSessions: [{ sessionId: 'sid-now', endedAt: now, longLivedUntil }], toEdge: true });
    expect(sessionDenyUntil(change.endedSessions[0]!)).toBe(longLivedUntil);
  });

  it("marks an admin's end, which the edge denies like a takeover", () => {
    expect(endedSessionsAfter({ endedSessions: [] }, session, 'admin', now)).toEqual({
      endedSessions: [{ sessionId: 'sid-now', endedAt: now, by: 'admin' }],
      toEdge: true,
    });
  });
});

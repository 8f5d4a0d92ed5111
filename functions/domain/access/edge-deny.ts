import { PLAYBACK_TOKEN_TTL_SECONDS } from '../playback-claims';
import type { CodeRecord, EndedSession, EventAccessState, PlaybackSession } from '../records';
import { sessionsOf } from '../codes';

/**
 * What the edge must deny, and until when. Short-lived JWTs simply expire, so a
 * plain release costs the edge nothing; only a takeover (another device claimed
 * the code), a session an admin ended, one that held a long-lived playback URL,
 * a revoked code and a deactivated event are pushed, each until no credential of it can still work.
 */

const later = (a: string, b: string | undefined) => (b !== undefined && b > a ? b : a);
const plusTokenLife = (iso: string) => new Date(Date.parse(iso) + PLAYBACK_TOKEN_TTL_SECONDS * 1000).toISOString();

/** How a session ends: another device took its code over, its viewer released it, or an admin ended it. */
export type SessionEnding = 'takeover' | 'release' | 'admin';

/** A code's ended sessions after one more ended. */
export interface EndedSessionsChange {
  endedSessions: EndedSession[];
  /** The edge must deny the session that ended: the store puts the code into the access feed. */
  toEdge: boolean;
}

/** Until when an ended session's credentials could work: the last JWT's life, or its long-lived URL's. */
export function sessionDenyUntil(ended: EndedSession): string {
  return later(plusTokenLife(ended.endedAt), ended.longLivedUntil);
}

/**
 * The one place a code's `endedSessions` changes: `session` ends at `now` (null: a claim on a free
 * code, which only tidies the list). Entries the edge may forget are dropped, and the ending session is
 * kept (so it enters the feed) when the edge must deny it: after a takeover or an admin's end, and after
 * a release only while it holds a valid long-lived URL (a plain release's short JWT simply expires).
 */
export function endedSessionsAfter(
  code: Pick<CodeRecord, 'endedSessions'>,
  session: PlaybackSession | null,
  ending: SessionEnding,
  now: string,
): EndedSessionsChange {
  const endedSessions = code.endedSessions.filter((entry) => sessionDenyUntil(entry) > now);
  if (!session) return { endedSessions, toEdge: false };
  const holdsLongLivedUrl = session.longLivedUntil !== undefined && session.longLivedUntil > now;
  if (ending === 'release' && !holdsLongLivedUrl) return { endedSessions, toEdge: false };
  endedSessions.push({
    sessionId: session.id,
    endedAt: now,
    ...(session.longLivedUntil ? { longLivedUntil: session.longLivedUntil } : {}),
    ...(ending === 'admin' ? { by: 'admin' as const } : {}),
  });
  return { endedSessions, toEdge: true };
}

/** Until when a code revoked at `now` must be denied: past every credential its sessions (every slot's) hold. */
export function codeDenyUntil(code: Parameters<typeof sessionsOf>[0] & Pick<CodeRecord, 'endedSessions'>, now: string): string {
  let until = plusTokenLife(now);
  for (const { session } of sessionsOf(code)) until = later(until, session.longLivedUntil);
  for (const ended of code.endedSessions) until = later(until, ended.longLivedUntil);
  return until;
}

/**
 * Until when a deactivated event must be denied: no credential outlives the
 * event's access window by more than one JWT life, nor the deactivation by
 * more than that, nor the longest long-lived URL issued for it (`denyUntil`:
 * issued while the access window ended later than it does now, such a URL
 * outlives the current window).
 */
export function eventDenyUntil(event: EventAccessState): string {
  const accessEnd = Date.parse(event.endsAt) + event.accessWindowHours * 3_600_000;
  const changed = Date.parse(event.activeChangedAt);
  const issued = event.denyUntil ? Date.parse(event.denyUntil) : Number.NaN;
  // An unreadable time (an image written by an older version) counts as the deactivation itself.
  const from = Math.max(...[changed, accessEnd, issued].map((at) => (Number.isNaN(at) ? 0 : at)));
  return new Date(from + PLAYBACK_TOKEN_TTL_SECONDS * 1000).toISOString();
}

import { PLAYBACK_TOKEN_TTL_SECONDS } from './playback-claims';
import type { CodeRecord, EndedSession, EventAccessState, PlaybackSession } from './records';

/**
 * What the edge must deny, and until when. Short-lived JWTs simply expire, so a
 * plain release costs the edge nothing; only a takeover (another device claimed
 * the code), an ended session that held a long-lived playback URL, a revoked code
 * and a deactivated event are pushed, each until no credential of it can still work.
 */

const later = (a: string, b: string | undefined) => (b !== undefined && b > a ? b : a);
const plusTokenLife = (iso: string) => new Date(Date.parse(iso) + PLAYBACK_TOKEN_TTL_SECONDS * 1000).toISOString();

/** The entry a session leaves behind when it ends at `endedAt`. */
export function endedSessionOf(session: PlaybackSession, endedAt: string): EndedSession {
  return { sessionId: session.id, endedAt, ...(session.longLivedUntil ? { longLivedUntil: session.longLivedUntil } : {}) };
}

/** A released session reaches the edge only if it held a long-lived URL that is still valid. */
export function releaseNeedsEdge(session: PlaybackSession, now: string): boolean {
  return session.longLivedUntil !== undefined && session.longLivedUntil > now;
}

/** Until when an ended session's credentials could work: the last JWT's life, or its long-lived URL's. */
export function sessionDenyUntil(ended: EndedSession): string {
  return later(plusTokenLife(ended.endedAt), ended.longLivedUntil);
}

/** Ended sessions are kept on the code (and so in the feed) only while the edge must deny them. */
export function endedSessionsToKeep(ended: EndedSession[], now: string): EndedSession[] {
  return ended.filter((entry) => sessionDenyUntil(entry) > now);
}

/** Until when a code revoked at `now` must be denied: past every credential its sessions hold. */
export function codeDenyUntil(code: Pick<CodeRecord, 'session' | 'endedSessions'>, now: string): string {
  let until = plusTokenLife(now);
  until = later(until, code.session?.longLivedUntil);
  for (const ended of code.endedSessions) until = later(until, ended.longLivedUntil);
  return until;
}

/**
 * Until when a deactivated event must be denied: no credential outlives the
 * event's access window by more than one JWT life (long-lived URLs end with
 * the access window), nor the deactivation by more than that.
 */
export function eventDenyUntil(event: EventAccessState): string {
  const accessEnd = Date.parse(event.endsAt) + event.accessWindowHours * 3_600_000;
  const changed = Date.parse(event.activeChangedAt);
  // An unreadable time (an image written by an older version) counts as the deactivation itself.
  const from = Math.max(Number.isNaN(changed) ? 0 : changed, Number.isNaN(accessEnd) ? 0 : accessEnd);
  return new Date(from + PLAYBACK_TOKEN_TTL_SECONDS * 1000).toISOString();
}

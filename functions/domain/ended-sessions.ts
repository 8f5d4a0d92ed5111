import type { EndedSession, PlaybackSession } from './records';

/**
 * An ended session matters while a credential issued to it could still work:
 * its last JWT (issued before `keepEndedAfter` = now minus a JWT lifetime, it
 * has expired) or, for a session handed a long-lived playback URL, that URL.
 */
export function endedSessionMatters(entry: EndedSession, keepEndedAfter: string, now: string): boolean {
  return entry.endedAt >= keepEndedAfter || (entry.longLivedUntil !== undefined && entry.longLivedUntil > now);
}

/** The record of `session` ending at `endedAt`. */
export function endOf(session: PlaybackSession, endedAt: string): EndedSession {
  return { sessionId: session.id, endedAt, ...(session.longLivedUntil ? { longLivedUntil: session.longLivedUntil } : {}) };
}

/**
 * The internal revocation feed (`GET /api/revocations?since=`), read by the
 * local media server and by the AWS edge-sync Lambda. The first three fields
 * and `serverTime` are the spec's; the others let a poller undo or narrow a
 * revocation. Each entry describes a change after `since`; applying entries
 * in any order is safe because each carries the latest state of its subject.
 */
export interface RevocationFeed {
  revocations: { code: string; revokedAt: string }[];
  eventDeactivations: { eventId: string; deactivatedAt: string; tokenCodes: string[] }[];
  /** Codes revoked earlier and now valid again. */
  unrevocations: { code: string; unrevokedAt: string }[];
  /** Events deactivated earlier and now active again. */
  eventReactivations: { eventId: string; reactivatedAt: string }[];
  /**
   * Playback sessions ended by release or by another device taking the code over; their JWTs must stop
   * working, and so must a long-lived playback URL, which may work until `longLivedUntil`.
   */
  endedSessions: { sessionId: string; code: string; endedAt: string; longLivedUntil?: string }[];
  /** Use as the next `since`. It lags the clock a little, so a poller may see an entry twice but never misses one. */
  serverTime: string;
}

/**
 * The internal revocation feed (`GET /api/revocations?since=`), read by the
 * local media server and by the AWS edge-sync Lambda. The first three fields
 * and `serverTime` are the spec's; the others let a poller undo or narrow a
 * revocation. Each entry describes a change after `since`; applying entries
 * in any order is safe because each carries the latest state of its subject.
 */
export interface RevocationFeed {
  /** `until`: when no credential issued before the revocation can still work; the edge may forget the entry then. */
  revocations: { code: string; revokedAt: string; until?: string }[];
  eventDeactivations: { eventId: string; deactivatedAt: string; tokenCodes: string[]; until?: string }[];
  /** Codes revoked earlier and now valid again. */
  unrevocations: { code: string; unrevokedAt: string }[];
  /** Events deactivated earlier and now active again. */
  eventReactivations: { eventId: string; reactivatedAt: string }[];
  /**
   * Playback sessions taken over by another device, or released while holding a long-lived playback URL
   * (`longLivedUntil`); their credentials must stop working until `until`. A plain release is not listed:
   * its short-lived JWT simply expires.
   */
  endedSessions: { sessionId: string; code: string; endedAt: string; longLivedUntil?: string; until?: string }[];
  /** Use as the next `since`. It lags the clock a little, so a poller may see an entry twice but never misses one. */
  serverTime: string;
}

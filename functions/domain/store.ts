import type { AccountStore } from './account-store';
import type { AuditAction, AuditEntry, AuditPage, AuditScope } from './audit-log';
import type {
  CodeAccessState,
  CodeRecord,
  CodeSummary,
  EndedSession,
  EventAccessState,
  EventRecord,
  LiveSessionRecord,
  PlaybackSession,
  PublishRefusal,
} from './records';

export type EventChanges = Partial<
  Pick<EventRecord, 'title' | 'description' | 'streamUrl' | 'posterUrl' | 'startsAt' | 'endsAt' | 'accessWindowHours' | 'isArchived' | 'ingestKey' | 'retiredIngestKeyHashes' | 'ingestVideo'>
>;

/** Sharded counters of an event, kept by the store as codes are redeemed and revoked, and by the domain for presence. */
export interface EventCounters {
  redeemed: number;
  revoked: number;
  /** Sum of `countPresence` deltas since `presenceSince`. */
  presence: number;
}

/**
 * The port between the domain and storage. Adapters raise the errors of
 * `errors.ts` (NotFound, AlreadyExists, CodeInUse, SessionGone, AccessRevoked,
 * RateLimited, Contended) and nothing from their SDK.
 */
export interface Store extends AccountStore {
  createEvent(event: EventRecord): Promise<void>;
  /**
   * `consistent: false` reads eventually consistent (half the read units): the viewer paths read one
   * event item for every validation and refresh, thousands a second on one key at a large show.
   */
  getEvent(id: string, options?: { consistent?: boolean }): Promise<EventRecord | null>;
  listEvents(): Promise<EventRecord[]>;
  /** Throws NotFound. */
  updateEvent(id: string, changes: EventChanges, now: string): Promise<EventRecord>;
  /** Sets `isActive` and copies it to every code of the event. Throws NotFound. */
  setEventActive(id: string, active: boolean, now: string): Promise<EventRecord>;
  /** Appends atomically; keeps at least the last `keep` (older ones are trimmed now and then). Throws NotFound. */
  appendPublishRefusal(id: string, refusal: PublishRefusal, keep: number): Promise<void>;
  /** Throws NotFound. */
  setEventLive(id: string, live: boolean, now: string): Promise<EventRecord>;
  /**
   * Takes or renews the event's publish lease for `holder` until `expiresAt`:
   * when there is none, it is `holder`'s, or it expired before `now`. One
   * conditional write. LeaseHeld when another holder's lease is fresh; NotFound.
   */
  acquireStreamLease(id: string, args: { holder: string; now: string; expiresAt: string }): Promise<EventRecord>;
  /**
   * Ends the lease if it is still `holder`'s (and, with `expiresAt`, still that
   * very lease: a finalizer must not end one that was renewed meanwhile); records
   * the end of the show. Otherwise a no-op returning the event. Throws NotFound.
   */
  releaseStreamLease(id: string, args: { holder: string; now: string; expiresAt?: string }): Promise<EventRecord>;
  /** Deletes the event's codes, then the event; leaves a deactivated tombstone for the feed. Throws NotFound. */
  deleteEvent(id: string, now: string): Promise<void>;

  /** Inserts a code unless one with the same code exists (AlreadyExists); adds to the event's code count (`tokenCount`). */
  createCode(code: CodeRecord): Promise<void>;
  /** Removes codes (a failed batch's compensation); missing ones are ignored. */
  deleteCodes(codes: string[]): Promise<void>;
  addToCodeCount(eventId: string, delta: number): Promise<void>;
  getCode(code: string): Promise<CodeRecord | null>;
  getCodeById(id: string): Promise<CodeRecord | null>;
  /** The event's codes, newest first, without their session state. */
  listCodes(eventId: string): Promise<CodeSummary[]>;
  /** Throws NotFound (or Contended). Revoking records until when the edge must deny the code (`denyUntil`). */
  setCodeRevoked(id: string, revoked: boolean, now: string): Promise<CodeRecord>;

  /**
   * Installs `session` on the code if its `revision` is still `expectedRevision`,
   * it is not revoked and its event is active; CodeInUse when another writer won.
   * `endedSessions` and `toEdge` are `endedSessionsAfter`'s (edge-deny.ts): with
   * `toEdge`, the code enters the access feed. The session enters its event's live-sessions
   * listing (replacing the code's previous one).
   */
  claimSession(args: {
    code: string;
    expectedRevision: number;
    session: PlaybackSession;
    endedSessions: EndedSession[];
    toEdge: boolean;
    redeemed: { at: string; ip: string } | null;
    now: string;
  }): Promise<CodeRecord>;
  /** One conditional write. SessionGone or AccessRevoked when it does not apply. */
  heartbeat(args: { code: string; sessionId: string; now: string; staleBefore: string }): Promise<void>;
  /**
   * Records that the live session was handed a long-lived playback URL valid until `until`
   * (kept if later already). SessionGone or AccessRevoked as for a heartbeat.
   */
  markSessionLongLived(args: { code: string; sessionId: string; until: string; staleBefore: string }): Promise<void>;
  /**
   * Ends the session if it is still the code's (and takes it off the live-sessions listing); no
   * error when it is gone already. True when this call ended it. The code's `endedSessions` become
   * `endedSessionsAfter`'s (edge-deny.ts) for a release, or an admin's end with `by: 'admin'`.
   * Contended when the code kept changing meanwhile.
   */
  releaseSession(args: { code: string; sessionId: string; now: string; by?: 'admin' }): Promise<boolean>;

  /**
   * An event's live sessions (heartbeat at or after `liveAfter`, code not revoked), newest start
   * first, at most `limit` per page; `cursor` is the previous page's `nextCursor` (InvalidCursor
   * when it is not one), null once nothing older is left. A page reads about `limit` sessions
   * whatever the audience (no count of them all: the presence counters estimate it); it may hold
   * fewer than `limit` with a cursor to go on when it passed many sessions that timed out.
   */
  listEventSessions(args: {
    eventId: string;
    liveAfter: string;
    cursor: string | null;
    limit: number;
  }): Promise<{ sessions: LiveSessionRecord[]; nextCursor: string | null }>;

  /** Counts one hit in a fixed window; RateLimited (with seconds to wait) when the window is full. */
  hitRateLimit(args: { key: string; limit: number; windowSeconds: number; now: Date }): Promise<void>;
  /** Seconds until the window has room again when it is full, else null. Counts nothing. */
  rateLimitRetryAfter(args: { key: string; limit: number; windowSeconds: number; now: Date }): Promise<number | null>;

  /** Codes and events whose access state changed at or after `since` (revocations, takeovers, (de)activations). */
  accessChangesSince(since: string): Promise<{ codes: CodeAccessState[]; events: EventAccessState[] }>;

  /** Counts a code's first redemption in the event's counters (`delta` -1 takes back one that lost a race). Best effort. */
  countRedemption(args: { eventId: string; code: string; delta: number }): Promise<void>;
  /** Adds `delta` to the event's presence in the time bucket of `at` (`seed` spreads writes over shards). Best effort. */
  countPresence(args: { eventId: string; seed: string; at: string; delta: number }): Promise<void>;
  eventCounters(args: { eventId: string; presenceSince: string }): Promise<EventCounters>;

  /** Keeps an audit entry in its scope's log (an event's, or the console-wide one). */
  putAuditEntry(entry: AuditEntry, scope: AuditScope): Promise<void>;
  /** Newest first: one event's log, or (eventId null) every entry. InvalidCursor for a cursor it did not issue. */
  listAuditEntries(args: { eventId: string | null; action: AuditAction | null; cursor: string | null; limit: number }): Promise<AuditPage>;
  /** Removes an event's log (with the event). */
  deleteAuditEntries(eventId: string): Promise<void>;

  revokeAdminSession(id: string, expiresAt: string): Promise<void>;
  isAdminSessionRevoked(id: string): Promise<boolean>;
}

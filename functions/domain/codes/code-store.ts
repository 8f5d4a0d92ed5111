import type { CodeFilter } from './code-filter';
import type { QualityReport } from '../playback-quality';
import type { CodeAccessState, CodeRecord, CodeSummary, EndedSession, EventAccessState, LiveSessionRecord, PlaybackSession } from '../records';

/** One of `of` disjoint parts of an event's codes (`listCodePage`). */
export interface CodePart {
  index: number;
  of: number;
}

/**
 * The codes port: access codes, the playback session each holds, and the access feed (what
 * the edge must deny: codes' revocations and ended sessions, events' (de)activations).
 * Adapters raise the errors of `errors.ts` (NotFound, AlreadyExists, CodeInUse, SessionGone,
 * AccessRevoked, Contended, InvalidCursor) and nothing from their SDK.
 */
export interface CodeStore {
  /** Inserts a code unless one with the same code exists (AlreadyExists). */
  createCode(code: CodeRecord): Promise<void>;
  /** Removes codes (a failed batch's compensation); missing ones are ignored. */
  deleteCodes(codes: string[]): Promise<void>;
  /** Removes every code of the event (with the event). */
  deleteEventCodes(eventId: string): Promise<void>;
  getCode(code: string): Promise<CodeRecord | null>;
  getCodeById(id: string): Promise<CodeRecord | null>;
  /** The event's codes, newest first, without their session state. */
  listCodes(eventId: string): Promise<CodeSummary[]>;
  /**
   * One page of the event's codes matching `filter` (code-filter.ts), newest first, at most `limit`;
   * `cursor` is the previous page's `nextCursor` (InvalidCursor when it is not one), null once nothing
   * older is left. A page passes at most `LIST_LIMITS.codePageScan` codes, whatever the event's size,
   * so a page of a rare filter may hold fewer than `limit` with a cursor to go on. Walking the cursor
   * gives every matching code exactly once (codes created meanwhile are newer: they are not in the walk).
   * With `part`, only part `index` of `of` (0 ≤ index < of ≤ 16) of the event's codes: each code is in
   * exactly one part, so a job's lanes walk the event side by side.
   */
  listCodePage(args: {
    eventId: string;
    filter: CodeFilter;
    cursor: string | null;
    limit: number;
    part?: CodePart;
  }): Promise<{ codes: CodeSummary[]; nextCursor: string | null }>;
  /**
   * Copies the event's `isActive` onto each of its codes (`eventActive`), so that a heartbeat
   * stays one conditional write; the event item stays the authority. A code deleted meanwhile is skipped.
   */
  copyEventActive(eventId: string, active: boolean): Promise<void>;
  /**
   * Revoking records until when the edge must deny the code (`denyUntil`). `changed` is false when
   * the code was in that state already. `code`, when the caller knows it, spares the lookup by id
   * (a code that is not `id`'s is NotFound). Throws NotFound (or Contended).
   */
  setCodeRevoked(id: string, revoked: boolean, now: string, code?: string): Promise<{ code: CodeRecord; changed: boolean }>;
  /**
   * What the event's revoked count holds of `code` as its item last acknowledged (`counted`: counted as
   * revoked), beside what it is (`isRevoked`): the two differ while a change of the code waits to be
   * counted (code-revocation.ts). Null for an unknown code.
   */
  revocationCountState(code: string): Promise<{ eventId: string; isRevoked: boolean; counted: boolean } | null>;
  /** Acknowledges that the count holds the code as `counted`, if the code is still that (`isRevoked`); true when written. */
  acknowledgeRevocationCount(code: string, counted: boolean): Promise<boolean>;

  /**
   * Installs `session` in the slot its id names (session-slots.ts), replacing
   * whatever the slot held, if the code's `revision` is still `expectedRevision`, it is not revoked and
   * its event is active; CodeInUse when another writer won. The other slots are left as they are.
   * `endedSessions` and `toEdge` are `endedSessionsAfter`'s (edge-deny.ts): with
   * `toEdge`, the code enters the access feed. The code enters its event's live-sessions listing,
   * which shows every session of the code: a claim of slot 1 puts it at this claim, one of
   * another slot leaves a listed code where it is.
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
  /**
   * One conditional write. With `quality`, the report is added to the session's totals in the same
   * write (its start-up time kept from the first report that had one). SessionGone or AccessRevoked
   * when it does not apply.
   */
  heartbeat(args: { code: string; sessionId: string; now: string; staleBefore: string; quality?: QualityReport | null }): Promise<void>;
  /**
   * Records that the live session was handed a long-lived playback URL valid until `until`
   * (kept if later already). SessionGone or AccessRevoked as for a heartbeat.
   */
  markSessionLongLived(args: { code: string; sessionId: string; until: string; staleBefore: string }): Promise<void>;
  /**
   * Ends the session if it still holds its slot (and, the code's last one, takes the code off the live-sessions listing); no
   * error when it is gone already. True when this call ended it. The code's `endedSessions` become
   * `endedSessionsAfter`'s (edge-deny.ts) for a release, or an admin's end with `by: 'admin'`.
   * Contended when the code kept changing meanwhile.
   */
  releaseSession(args: { code: string; sessionId: string; now: string; by?: 'admin' }): Promise<boolean>;
  /**
   * An event's live sessions (heartbeat at or after `liveAfter`, code not revoked), every slot's, by code
   * newest listing claim first (`claimSession`; a code's sessions together, newest start first), about `limit` per page (a page
   * may pass `limit` by the sessions of its last code, at most `MAX_SESSION_SLOTS` - 1); `cursor` is the previous page's `nextCursor` (InvalidCursor
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

  /**
   * How many sessions (of all slots) beat at or after `liveAfter` on each of `codes` (a revoked code's: 0;
   * an unknown code is left out). Eventually consistent: a console's figure, never an access decision.
   */
  liveSessionCounts(codes: string[], liveAfter: string): Promise<Map<string, number>>;
  /**
   * The ids of the sessions each of `codes` holds in any slot (live or timed out) and of those it lists as
   * ended recently (`endedSessions`), by code (an unknown code is left out). Eventually consistent.
   */
  codeSessionIds(codes: string[]): Promise<Map<string, string[]>>;

  /** Codes and events whose access state changed at or after `since` (revocations, takeovers, (de)activations, deletions). */
  accessChangesSince(since: string): Promise<{ codes: CodeAccessState[]; events: EventAccessState[] }>;
}

import type { CodeStore } from '../../functions/domain/codes';
import { codeDenyUntil, endedSessionsAfter } from '../../functions/domain/access';
import { AccessRevoked, AlreadyExists, CodeInUse, NotFound, SessionGone } from '../../functions/domain/errors';
import type { CodeAccessState, CodeRecord, CodeSummary, EventAccessState, LiveSessionRecord } from '../../functions/domain/records';
import { matchesCodeFilter, sessionById, sessionIdsOfCode, sessionSlotOf, sessionsOf, slotAttribute } from '../../functions/domain/codes';
import { LIST_LIMITS } from '../../functions/domain/config';
import { changedSince, copy } from './memory-records';
import { shardOf } from '../../functions/adapters/dynamo-keys';
import { CODE_SHARDS } from '../../functions/adapters/table-schema';
import { decodeCursor, encodeCursor } from './memory-cursor';

interface StoredCode {
  record: CodeRecord;
  /** What the event's revoked count holds of it, as last acknowledged (DynamoDB's `revokeCounted`); absent: as it is. */
  revokeCounted?: boolean;
  /** When it last entered the access feed. */
  feedAt: string | null;
}

/** An event's codes are listed newest first, then by id, as the DynamoDB index sorts them. */
const codeOrder = (code: CodeRecord) => `${code.createdAt}#${code.id}`;
const newestCodeFirst = (a: CodeRecord, b: CodeRecord) => (codeOrder(a) < codeOrder(b) ? 1 : codeOrder(a) > codeOrder(b) ? -1 : 0);
/** A page of live sessions passes at most this many times its limit in entries, as in DynamoDB. */
const PAGE_SCAN_FACTOR = 4;
/** Live sessions are listed newest start first, then by session id, as the DynamoDB index sorts them. */
const sessionOrder = (session: { startedAt: string; id: string }) => `${session.startedAt}#${session.id}`;

function toSummary(code: CodeRecord): CodeSummary {
  const { id, code: value, eventId, label, isRevoked, revokedAt, revokedChangedAt, redeemedAt, redeemedIp, createdAt } = code;
  return { id, code: value, eventId, label, isRevoked, revokedAt, revokedChangedAt, redeemedAt, redeemedIp, createdAt };
}

/**
 * The codes port in memory (memory-stores.ts). Each method reads and writes without awaiting in
 * between, so it is as atomic as DynamoDB's conditional write. The access feed holds the events'
 * entries too: `eventChanges` reads them from the events port's twin.
 */
export class MemoryCodeStore implements CodeStore {
  /** By code. */
  private readonly codes = new Map<string, StoredCode>();
  /** The live-sessions listing: by code, its event and its newest claim's order (until the release of its last session). */
  private readonly listed = new Map<string, { eventId: string; order: string }>();

  constructor(private readonly eventChanges: (since: string) => EventAccessState[]) {}

  private codesOf(eventId: string): CodeRecord[] {
    return [...this.codes.values()].map(({ record }) => record).filter((code) => code.eventId === eventId).sort(newestCodeFirst);
  }

  private codeById(id: string): StoredCode | undefined {
    return [...this.codes.values()].find(({ record }) => record.id === id);
  }

  async createCode(code: CodeRecord): Promise<void> {
    if (this.codes.has(code.code)) throw new AlreadyExists('code exists');
    this.codes.set(code.code, { record: copy(code), feedAt: null });
  }

  async deleteCodes(codes: string[]): Promise<void> {
    for (const code of codes) {
      this.codes.delete(code);
      this.listed.delete(code);
    }
  }

  async deleteEventCodes(eventId: string): Promise<void> {
    await this.deleteCodes(this.codesOf(eventId).map((code) => code.code));
  }

  async getCode(code: string): Promise<CodeRecord | null> {
    const stored = this.codes.get(code);
    return stored ? copy(stored.record) : null;
  }

  async getCodeById(id: string): Promise<CodeRecord | null> {
    const stored = this.codeById(id);
    return stored ? copy(stored.record) : null;
  }

  async listCodes(eventId: string): Promise<CodeSummary[]> {
    return this.codesOf(eventId).map(toSummary);
  }

  async listCodePage(args: Parameters<CodeStore['listCodePage']>[0]): Promise<{ codes: CodeSummary[]; nextCursor: string | null }> {
    const before = args.cursor
      ? decodeCursor<{ before: string }>(args.cursor, (value) => Object.keys(value).length === 1 && typeof value.before === 'string').before
      : null;
    const { part, filter } = args;
    // An exact label reads only that label's codes, as DynamoDB's `byLabel` index does.
    const older = this.codesOf(args.eventId).filter(
      (code) =>
        (before === null || codeOrder(code) < before) &&
        (!part || shardOf(code.code, CODE_SHARDS) % part.of === part.index) &&
        (filter.label === undefined || code.label === filter.label),
    );
    const codes: CodeSummary[] = [];
    let passed = 0;
    // As in DynamoDB: at most `codePageScan` codes passed, the cursor after the last one passed.
    while (passed < older.length && codes.length < args.limit && passed < LIST_LIMITS.codePageScan) {
      const code = toSummary(older[passed++]!);
      if (matchesCodeFilter(code, args.filter)) codes.push(code);
    }
    return { codes: copy(codes), nextCursor: passed > 0 && passed < older.length ? encodeCursor({ before: codeOrder(older[passed - 1]!) }) : null };
  }

  async copyEventActive(eventId: string, active: boolean): Promise<void> {
    for (const code of this.codesOf(eventId)) code.eventActive = active;
  }

  async setCodeRevoked(id: string, revoked: boolean, now: string, knownCode?: string): Promise<{ code: CodeRecord; changed: boolean }> {
    const stored = this.codeById(id);
    if (!stored || (knownCode !== undefined && stored.record.code !== knownCode)) throw new NotFound('code', id);
    const code = stored.record;
    if (code.isRevoked === revoked) return { code: copy(code), changed: false };
    stored.revokeCounted ??= code.isRevoked;
    Object.assign(code, {
      isRevoked: revoked,
      revokedAt: revoked ? now : null,
      revokedChangedAt: now,
      denyUntil: revoked ? codeDenyUntil(code, now) : null,
    });
    stored.feedAt = now;
    return { code: copy(code), changed: true };
  }

  async revocationCountState(code: string): Promise<{ eventId: string; isRevoked: boolean; counted: boolean } | null> {
    const stored = this.codes.get(code);
    if (!stored) return null;
    return { eventId: stored.record.eventId, isRevoked: stored.record.isRevoked, counted: stored.revokeCounted ?? stored.record.isRevoked };
  }

  async acknowledgeRevocationCount(code: string, counted: boolean): Promise<boolean> {
    const stored = this.codes.get(code);
    if (!stored || stored.record.isRevoked !== counted) return false;
    stored.revokeCounted = counted;
    return true;
  }

  async claimSession(args: Parameters<CodeStore['claimSession']>[0]): Promise<CodeRecord> {
    const stored = this.codes.get(args.code);
    const code = stored?.record;
    if (!stored || !code || code.revision !== args.expectedRevision || code.isRevoked || !code.eventActive) {
      throw new CodeInUse('the code changed while claiming it', code ? copy(code) : null);
    }
    // Only the slot its id names: the other slots' sessions stay as they are.
    Object.assign(code, { [slotAttribute(sessionSlotOf(args.session.id))]: copy(args.session), endedSessions: copy(args.endedSessions), revision: code.revision + 1 });
    if (args.redeemed) Object.assign(code, { redeemedAt: args.redeemed.at, redeemedIp: args.redeemed.ip });
    if (args.toEdge) stored.feedAt = args.now;
    // As DynamoDB: a claim of slot 1 moves the code's entry, one of another slot leaves a listed code where it is.
    if (sessionSlotOf(args.session.id) === 1 || !this.listed.has(code.code)) this.listed.set(code.code, { eventId: code.eventId, order: sessionOrder(args.session) });
    return copy(code);
  }

  /** The session `sessionId` of a code that still grants access, if it is live; the refusal (with the code as seen) otherwise. */
  private liveSession(args: { code: string; sessionId: string; staleBefore: string }) {
    const code = this.codes.get(args.code)?.record;
    const seen = code ? copy(code) : null;
    if (!code || code.isRevoked || !code.eventActive) throw new AccessRevoked('code or event no longer active', seen);
    const session = sessionById(code, args.sessionId);
    if (!session || session.heartbeatAt < args.staleBefore) throw new SessionGone('session ended', seen);
    return { code, session };
  }

  async heartbeat(args: Parameters<CodeStore['heartbeat']>[0]): Promise<void> {
    const { session } = this.liveSession(args);
    session.heartbeatAt = args.now;
    const report = args.quality;
    if (!report) return;
    for (const field of ['playingMs', 'stalledMs', 'stalls', 'droppedFrames', 'errors'] as const) {
      if (report[field] !== 0) session[field] = (session[field] ?? 0) + report[field];
    }
    if (report.startupMs !== undefined) session.startupMs ??= report.startupMs;
    if (report.bitrateKbps !== undefined) session.bitrateKbps = report.bitrateKbps;
    if (report.lastFatal !== undefined) session.lastFatal = report.lastFatal;
    if (report.errorTypes) session.errorTypes = report.errorTypes;
    else delete session.errorTypes;
  }

  async markSessionLongLived(args: { code: string; sessionId: string; until: string; staleBefore: string }): Promise<void> {
    const { code, session } = this.liveSession(args);
    if (session.longLivedUntil !== undefined && session.longLivedUntil >= args.until) return;
    session.longLivedUntil = args.until;
    // A revoke sizes the code's deny from the session it read, so it must read again.
    code.revision++;
  }

  async releaseSession(args: Parameters<CodeStore['releaseSession']>[0]): Promise<boolean> {
    const stored = this.codes.get(args.code);
    const session = stored && sessionById(stored.record, args.sessionId);
    if (!stored || !session) return false;
    const code = stored.record;
    const { endedSessions, toEdge } = endedSessionsAfter(code, session, args.by === 'admin' ? 'admin' : 'release', args.now);
    Object.assign(code, { [slotAttribute(sessionSlotOf(args.sessionId))]: null, endedSessions, sessionEndedAt: args.now, revision: code.revision + 1 });
    // The code stays listed while another of its slots holds a session.
    if (sessionsOf(code).length === 0) this.listed.delete(code.code);
    if (toEdge) stored.feedAt = args.now;
    return true;
  }

  /**
   * As the DynamoDB index: claims enter the listing and releases leave it; a page passes at most a few
   * times `limit` entries and skips the timed-out ones, which stay. The cursor is the last entry passed.
   */
  async listEventSessions(args: Parameters<CodeStore['listEventSessions']>[0]) {
    const after = args.cursor
      ? decodeCursor<{ startedAt: string; sessionId: string }>(args.cursor, (value) => typeof value.startedAt === 'string' && typeof value.sessionId === 'string')
      : null;
    const before = after ? sessionOrder({ startedAt: after.startedAt, id: after.sessionId }) : null;
    const entries = [...this.listed]
      .filter(([, entry]) => entry.eventId === args.eventId && (before === null || entry.order < before))
      .sort(([, a], [, b]) => b.order.localeCompare(a.order));
    const sessions: LiveSessionRecord[] = [];
    let position = 0;
    for (; position < entries.length && sessions.length < args.limit && position < args.limit * PAGE_SCAN_FACTOR; position++) {
      const [code, entry] = entries[position]!;
      const record = this.codes.get(code)?.record;
      // Timed out, or a revoked code's (over whatever its last heartbeat says): passed over.
      if (!record || record.isRevoked) continue;
      const live = sessionsOf(record).filter(({ session }) => session.heartbeatAt >= args.liveAfter);
      live.sort((a, b) => sessionOrder(b.session).localeCompare(sessionOrder(a.session)));
      for (const { session } of live) sessions.push({ code: record.code, codeId: record.id, label: record.label, session: copy(session) });
    }
    const [, last] = entries[position - 1] ?? [];
    const [startedAt, sessionId] = last ? [last.order.slice(0, last.order.indexOf('#')), last.order.slice(last.order.indexOf('#') + 1)] : [];
    return { sessions, nextCursor: last && position < entries.length ? encodeCursor({ startedAt: startedAt!, sessionId: sessionId! }) : null };
  }

  async liveSessionCounts(codes: string[], liveAfter: string): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const code of codes) {
      const record = this.codes.get(code)?.record;
      if (record) counts.set(code, record.isRevoked ? 0 : sessionsOf(record).filter(({ session }) => session.heartbeatAt >= liveAfter).length);
    }
    return counts;
  }

  async codeSessionIds(codes: string[]): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    for (const code of codes) {
      const record = this.codes.get(code)?.record;
      if (record) found.set(code, sessionIdsOfCode(record));
    }
    return found;
  }

  async accessChangesSince(since: string): Promise<{ codes: CodeAccessState[]; events: EventAccessState[] }> {
    const codes = changedSince(this.codes.values(), since).map(({ record }) => ({
      code: record.code,
      isRevoked: record.isRevoked,
      revokedAt: record.revokedAt,
      revokedChangedAt: record.revokedChangedAt,
      endedSessions: copy(record.endedSessions),
      denyUntil: record.denyUntil ?? null,
    }));
    return { codes, events: this.eventChanges(since) };
  }
}

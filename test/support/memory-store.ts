import { rateWindow } from '../../functions/adapters/dynamo-store';
import type { AuditAction, AuditEntry, AuditPage, AuditScope } from '../../functions/domain/audit-log';
import { codeDenyUntil, endedSessionsAfter } from '../../functions/domain/edge-deny';
import { AccessRevoked, AlreadyExists, CodeInUse, InvalidCursor, LeaseHeld, NotFound, RateLimited, SessionGone } from '../../functions/domain/errors';
import type { CodeAccessState, CodeRecord, CodeSummary, EventAccessState, EventRecord, LiveSessionRecord, PublishRefusal } from '../../functions/domain/records';
import type { EventChanges, EventCounters, Store } from '../../functions/domain/store';
import { MemoryAccountStore } from './memory-account-store';

/** Presence is counted in buckets of this many seconds, as in DynamoDB. */
const PRESENCE_BUCKET_SECONDS = 10;

interface StoredEvent {
  record: EventRecord;
  /** A deleted event stays as a tombstone for the access feed. */
  deleted: boolean;
  /** When it last entered the access feed. */
  feedAt: string | null;
}

interface StoredCode {
  record: CodeRecord;
  feedAt: string | null;
}

const copy = <T>(value: T): T => structuredClone(value);
const newestCodeFirst = (a: CodeRecord, b: CodeRecord) => `${b.createdAt}#${b.id}`.localeCompare(`${a.createdAt}#${a.id}`);
const auditOrder = (entry: AuditEntry) => `${entry.at}#${entry.id}`;
/** A page of live sessions passes at most this many times its limit in entries, as in DynamoDB. */
const PAGE_SCAN_FACTOR = 4;
/** Live sessions are listed newest start first, then by session id, as the DynamoDB index sorts them. */
const sessionOrder = (session: { startedAt: string; id: string }) => `${session.startedAt}#${session.id}`;

function encodeCursor(value: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function decodeCursor<T>(cursor: string, valid: (value: Record<string, unknown>) => boolean): T {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursor('not a cursor');
  }
  if (typeof value !== 'object' || value === null || !valid(value as Record<string, unknown>)) throw new InvalidCursor('not a cursor of this listing');
  return value as T;
}

/** The code's session as the admin's lists show it, if it is live. A revoked code's session is over whatever its last heartbeat says. */
function liveSessionOf(code: CodeRecord, staleBefore: string): LiveSessionRecord | null {
  const { session } = code;
  if (!session || session.heartbeatAt < staleBefore || code.isRevoked) return null;
  return { code: code.code, codeId: code.id, label: code.label, session: copy(session) };
}

function toSummary(code: CodeRecord): CodeSummary {
  const { id, code: value, eventId, label, isRevoked, revokedAt, revokedChangedAt, redeemedAt, redeemedIp, createdAt } = code;
  return { id, code: value, eventId, label, isRevoked, revokedAt, revokedChangedAt, redeemedAt, redeemedIp, createdAt };
}

/**
 * The Store in memory, for fast tests of the domain's rules: it passes the same contract suite as
 * DynamoStore (`test/integration/store-contract*.ts`). Every method does its reads and writes without
 * awaiting in between, so each is atomic like one conditional write, and records go in and out as
 * copies, like items over the wire. What DynamoDB only collects by TTL (rate windows, presence
 * buckets, revoked admin sessions) is kept, as the domain never relies on TTL.
 */
export class MemoryStore extends MemoryAccountStore implements Store {
  private readonly events = new Map<string, StoredEvent>();
  /** By code. */
  private readonly codes = new Map<string, StoredCode>();
  /** Hits by window (the window's DynamoDB key). */
  private readonly rateWindows = new Map<string, number>();
  private readonly totals = new Map<string, { redeemed: number; revoked: number }>();
  /** Per event: presence bucket → viewers. */
  private readonly presence = new Map<string, Map<number, number>>();
  private readonly audit: { entry: AuditEntry; scope: string }[] = [];
  private readonly revokedAdminSessions = new Set<string>();
  /** The live-sessions listing: by code, its session's event and order (a claim's entry, until a release or a listing drops it). */
  private readonly listed = new Map<string, { eventId: string; order: string }>();

  private liveEvent(id: string): StoredEvent {
    const stored = this.events.get(id);
    if (!stored || stored.deleted) throw new NotFound(`event ${id}`);
    return stored;
  }

  private codesOf(eventId: string): CodeRecord[] {
    return [...this.codes.values()].map(({ record }) => record).filter((code) => code.eventId === eventId).sort(newestCodeFirst);
  }

  private codeById(id: string): StoredCode | undefined {
    return [...this.codes.values()].find(({ record }) => record.id === id);
  }

  private totalsOf(eventId: string) {
    let totals = this.totals.get(eventId);
    if (!totals) this.totals.set(eventId, (totals = { redeemed: 0, revoked: 0 }));
    return totals;
  }

  async createEvent(event: EventRecord): Promise<void> {
    if (this.events.has(event.id)) throw new AlreadyExists(`event ${event.id} exists`);
    this.events.set(event.id, { record: copy(event), deleted: false, feedAt: null });
  }

  async getEvent(id: string): Promise<EventRecord | null> {
    const stored = this.events.get(id);
    return stored && !stored.deleted ? copy(stored.record) : null;
  }

  async listEvents(): Promise<EventRecord[]> {
    return [...this.events.values()]
      .filter((stored) => !stored.deleted)
      .map(({ record }) => record)
      .sort((a, b) => `${b.createdAt}#${b.id}`.localeCompare(`${a.createdAt}#${a.id}`))
      .map(copy);
  }

  async updateEvent(id: string, changes: EventChanges, now: string): Promise<EventRecord> {
    const { record } = this.liveEvent(id);
    for (const [field, value] of Object.entries(changes)) {
      if (value !== undefined) Object.assign(record, { [field]: copy(value) });
    }
    record.updatedAt = now;
    return copy(record);
  }

  async setEventActive(id: string, active: boolean, now: string): Promise<EventRecord> {
    const stored = this.liveEvent(id);
    Object.assign(stored.record, { isActive: active, activeChangedAt: now, updatedAt: now });
    stored.feedAt = now;
    for (const code of this.codesOf(id)) code.eventActive = active;
    return copy(stored.record);
  }

  async appendPublishRefusal(id: string, refusal: PublishRefusal, keep: number): Promise<void> {
    const { record } = this.liveEvent(id);
    const all = [...(record.publishRefusals ?? []), copy(refusal)];
    record.publishRefusals = all.length > keep * 2 ? all.slice(-keep) : all;
  }

  async setEventLive(id: string, live: boolean, now: string): Promise<EventRecord> {
    const { record } = this.liveEvent(id);
    Object.assign(record, live ? { liveSince: now, updatedAt: now } : { liveSince: null, lastLiveEndedAt: now, updatedAt: now });
    return copy(record);
  }

  async acquireStreamLease(id: string, { holder, now, expiresAt }: { holder: string; now: string; expiresAt: string }): Promise<EventRecord> {
    const { record } = this.liveEvent(id);
    const free = !record.leaseHolder || record.leaseHolder === holder || (record.leaseExpiresAt ?? '') <= now;
    if (!free) throw new LeaseHeld(`event ${id}`);
    Object.assign(record, { leaseHolder: holder, leaseExpiresAt: expiresAt, updatedAt: now });
    return copy(record);
  }

  async releaseStreamLease(id: string, { holder, now, expiresAt }: { holder: string; now: string; expiresAt?: string }): Promise<EventRecord> {
    const { record } = this.liveEvent(id);
    if (record.leaseHolder === holder && (!expiresAt || record.leaseExpiresAt === expiresAt)) {
      Object.assign(record, { leaseHolder: null, leaseExpiresAt: null, liveSince: null, lastLiveEndedAt: now, updatedAt: now });
    }
    return copy(record);
  }

  async deleteEvent(id: string, now: string): Promise<void> {
    const stored = this.liveEvent(id);
    Object.assign(stored, { deleted: true, feedAt: now });
    Object.assign(stored.record, { isActive: false, activeChangedAt: now });
    await this.deleteCodes(this.codesOf(id).map((code) => code.code));
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

  async addToCodeCount(eventId: string, delta: number): Promise<void> {
    this.liveEvent(eventId).record.tokenCount += delta;
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

  async setCodeRevoked(id: string, revoked: boolean, now: string): Promise<CodeRecord> {
    const stored = this.codeById(id);
    if (!stored) throw new NotFound(`token ${id}`);
    const code = stored.record;
    if (code.isRevoked === revoked) return copy(code);
    Object.assign(code, {
      isRevoked: revoked,
      revokedAt: revoked ? now : null,
      revokedChangedAt: now,
      denyUntil: revoked ? codeDenyUntil(code, now) : null,
    });
    stored.feedAt = now;
    this.totalsOf(code.eventId).revoked += revoked ? 1 : -1;
    return copy(code);
  }

  async claimSession(args: Parameters<Store['claimSession']>[0]): Promise<CodeRecord> {
    const stored = this.codes.get(args.code);
    const code = stored?.record;
    if (!stored || !code || code.revision !== args.expectedRevision || code.isRevoked || !code.eventActive) {
      throw new CodeInUse('the code changed while claiming it');
    }
    Object.assign(code, { session: copy(args.session), endedSessions: copy(args.endedSessions), revision: code.revision + 1 });
    if (args.redeemed) Object.assign(code, { redeemedAt: args.redeemed.at, redeemedIp: args.redeemed.ip });
    if (args.toEdge) stored.feedAt = args.now;
    this.listed.set(code.code, { eventId: code.eventId, order: sessionOrder(args.session) });
    return copy(code);
  }

  /** The session `sessionId` of a code that still grants access, if it is live; the refusal otherwise. */
  private liveSession(args: { code: string; sessionId: string; staleBefore: string }) {
    const code = this.codes.get(args.code)?.record;
    if (!code || code.isRevoked || !code.eventActive) throw new AccessRevoked('code or event no longer active');
    const session = code.session;
    if (session?.id !== args.sessionId || session.heartbeatAt < args.staleBefore) throw new SessionGone('session ended');
    return { code, session };
  }

  async heartbeat(args: { code: string; sessionId: string; now: string; staleBefore: string }): Promise<void> {
    this.liveSession(args).session.heartbeatAt = args.now;
  }

  async markSessionLongLived(args: { code: string; sessionId: string; until: string; staleBefore: string }): Promise<void> {
    const { code, session } = this.liveSession(args);
    if (session.longLivedUntil !== undefined && session.longLivedUntil >= args.until) return;
    session.longLivedUntil = args.until;
    // A revoke sizes the code's deny from the session it read, so it must read again.
    code.revision++;
  }

  async releaseSession(args: Parameters<Store['releaseSession']>[0]): Promise<boolean> {
    const stored = this.codes.get(args.code);
    const session = stored?.record.session;
    if (!stored || !session || session.id !== args.sessionId) return false;
    const code = stored.record;
    const { endedSessions, toEdge } = endedSessionsAfter(code, session, args.by === 'admin' ? 'admin' : 'release', args.now);
    Object.assign(code, { session: null, endedSessions, revision: code.revision + 1 });
    this.listed.delete(code.code);
    if (toEdge) stored.feedAt = args.now;
    return true;
  }

  /**
   * As the DynamoDB index: claims enter the listing and releases leave it; a page passes at most a few
   * times `limit` entries and forgets the timed-out ones it passed. The cursor is the last entry passed.
   */
  async listEventSessions(args: Parameters<Store['listEventSessions']>[0]) {
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
      if (!record?.session || sessionOrder(record.session) !== entry.order) continue;
      if (record.session.heartbeatAt < args.liveAfter) this.listed.delete(code);
      else if (!record.isRevoked) sessions.push(liveSessionOf(record, args.liveAfter)!);
    }
    const [, last] = entries[position - 1] ?? [];
    const [startedAt, sessionId] = last ? [last.order.slice(0, last.order.indexOf('#')), last.order.slice(last.order.indexOf('#') + 1)] : [];
    return { sessions, nextCursor: last && position < entries.length ? encodeCursor({ startedAt: startedAt!, sessionId: sessionId! }) : null };
  }

  async rateLimitRetryAfter(args: { key: string; limit: number; windowSeconds: number; now: Date }): Promise<number | null> {
    const { key, windowEnd, nowSeconds } = rateWindow(args);
    return (this.rateWindows.get(key.pk) ?? 0) >= args.limit ? Math.max(1, windowEnd - nowSeconds) : null;
  }

  async hitRateLimit(args: { key: string; limit: number; windowSeconds: number; now: Date }): Promise<void> {
    const { key, windowEnd, nowSeconds } = rateWindow(args);
    const hits = this.rateWindows.get(key.pk) ?? 0;
    if (hits >= args.limit) throw new RateLimited(Math.max(1, windowEnd - nowSeconds));
    this.rateWindows.set(key.pk, hits + 1);
  }

  async accessChangesSince(since: string): Promise<{ codes: CodeAccessState[]; events: EventAccessState[] }> {
    const changed = <T extends { feedAt: string | null }>(items: Iterable<T>) =>
      [...items].filter((item) => item.feedAt !== null && item.feedAt >= since).sort((a, b) => a.feedAt!.localeCompare(b.feedAt!));
    return {
      codes: changed(this.codes.values()).map(({ record }) => ({
        code: record.code,
        isRevoked: record.isRevoked,
        revokedAt: record.revokedAt,
        revokedChangedAt: record.revokedChangedAt,
        endedSessions: copy(record.endedSessions),
        denyUntil: record.denyUntil ?? null,
      })),
      events: changed(this.events.values()).map(({ record }) => ({
        id: record.id,
        isActive: record.isActive,
        activeChangedAt: record.activeChangedAt,
        endsAt: record.endsAt,
        accessWindowHours: record.accessWindowHours,
      })),
    };
  }

  async countRedemption(args: { eventId: string; code: string; delta: number }): Promise<void> {
    this.totalsOf(args.eventId).redeemed += args.delta;
  }

  async countPresence(args: { eventId: string; seed: string; at: string; delta: number }): Promise<void> {
    let buckets = this.presence.get(args.eventId);
    if (!buckets) this.presence.set(args.eventId, (buckets = new Map()));
    const bucket = presenceBucket(args.at);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + args.delta);
  }

  async eventCounters(args: { eventId: string; presenceSince: string }): Promise<EventCounters> {
    const from = presenceBucket(args.presenceSince);
    let presence = 0;
    for (const [bucket, viewers] of this.presence.get(args.eventId) ?? []) if (bucket >= from) presence += viewers;
    return { ...this.totalsOf(args.eventId), presence: Math.max(0, presence) };
  }

  /** An entry with the same scope, time and id replaces the one there, as a put of the same key does in DynamoDB. */
  async putAuditEntry(entry: AuditEntry, scope: AuditScope): Promise<void> {
    const stored = { entry: copy(entry), scope: scope === 'console' ? 'console' : scope.eventId };
    const same = this.audit.findIndex((other) => other.scope === stored.scope && auditOrder(other.entry) === auditOrder(entry));
    if (same >= 0) this.audit[same] = stored;
    else this.audit.push(stored);
  }

  /** The cursor names its listing and the last entry shown (`at#id`). */
  async listAuditEntries(args: { eventId: string | null; action: AuditAction | null; cursor: string | null; limit: number }): Promise<AuditPage> {
    const listing = args.eventId ?? '*';
    const after = args.cursor
      ? decodeCursor<{ listing: string; last: string }>(args.cursor, (value) => value.listing === listing && typeof value.last === 'string').last
      : null;
    const rest = this.audit
      .filter(({ scope, entry }) => (args.eventId === null || scope === args.eventId) && (!args.action || entry.action === args.action))
      .map(({ entry }) => entry)
      .sort((a, b) => auditOrder(b).localeCompare(auditOrder(a)))
      .filter((entry) => after === null || auditOrder(entry) < after);
    const entries = rest.slice(0, args.limit);
    const last = entries[entries.length - 1];
    return { entries: entries.map(copy), nextCursor: rest.length > args.limit && last ? encodeCursor({ listing, last: auditOrder(last) }) : null };
  }

  async deleteAuditEntries(eventId: string): Promise<void> {
    const kept = this.audit.filter(({ scope }) => scope !== eventId);
    this.audit.splice(0, this.audit.length, ...kept);
  }

  async revokeAdminSession(id: string): Promise<void> {
    this.revokedAdminSessions.add(id);
  }

  async isAdminSessionRevoked(id: string): Promise<boolean> {
    return this.revokedAdminSessions.has(id);
  }
}

const presenceBucket = (iso: string) => Math.floor(Date.parse(iso) / 1000 / PRESENCE_BUCKET_SECONDS);

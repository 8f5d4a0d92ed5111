import { PLAYBACK_TOKEN_TTL_SECONDS } from '../domain/playback-claims';
import type { RevocationFeed } from '../domain/revocation-feed';
import type { CodeRecord, EventRecord } from '../domain/records';
import type { SigningKeys } from '../domain/signing-keys';

/**
 * The KeyValueStore key scheme read by `edge/validate-request.js`, written by
 * the edge-sync Lambda (AWS) and by the local media server (in memory).
 * A key's presence is the fact; values stay tiny: the signing secret, the
 * epoch seconds of the change, or for `s:` until when the entry is needed.
 */
const kvsKey = {
  signingKey: (kid: string) => `k:${kid}`,
  revokedCode: (code: string) => `c:${code}`,
  deactivatedEvent: (eventId: string) => `e:${eventId}`,
  endedSession: (sessionId: string) => `s:${sessionId}`,
};

/** Every key this project writes; anything else in the store is left alone. */
const OWN_KEY = /^[kces]:/;
const ENDED_SESSION = /^s:/;

/**
 * No credential is issued for a session after it ended, so its entry matters
 * only until the last one issued before the end expires: its last JWT, or its
 * long-lived playback URL (`longLivedUntil`); 5 minutes cover clock skew.
 */
const CLOCK_SKEW_SECONDS = 300;

/** The `s:` value: epoch seconds until which the edge must deny the session. */
function endedSessionKeptUntil(ended: { endedAt: string; longLivedUntil?: string }, now: Date): string {
  const jwtsExpire = Number(epochSeconds(ended.endedAt, now)) + PLAYBACK_TOKEN_TTL_SECONDS;
  const urlExpires = ended.longLivedUntil ? Number(epochSeconds(ended.longLivedUntil, now)) : 0;
  return String(Math.max(jwtsExpire, urlExpires) + CLOCK_SKEW_SECONDS);
}

/** `value: null` deletes the key. */
export interface KvsChange {
  key: string;
  value: string | null;
}

/** Epoch seconds as a string; a missing or unreadable time counts as `fallback`, so every entry can expire. */
function epochSeconds(iso: string | null | undefined, fallback: Date): string {
  const ms = iso ? Date.parse(iso) : Number.NaN;
  return String(Math.floor((Number.isNaN(ms) ? fallback.getTime() : ms) / 1000));
}

/** `k:<kid>` entries: every verifying key, base64url as the edge decodes it. */
export function signingKeyEntries(signingKeys: SigningKeys): Map<string, string> {
  const entries = new Map<string, string>();
  for (const [kid, secret] of signingKeys.keys) {
    entries.set(kvsKey.signingKey(kid), Buffer.from(secret).toString('base64url'));
  }
  return entries;
}

/** The changes one revocation-feed page asks for (each entry carries its subject's latest state). */
export function changesFromFeed(feed: RevocationFeed, now: Date): KvsChange[] {
  return [
    ...feed.revocations.map((r) => ({ key: kvsKey.revokedCode(r.code), value: epochSeconds(r.revokedAt, now) })),
    ...feed.unrevocations.map((u) => ({ key: kvsKey.revokedCode(u.code), value: null })),
    ...feed.eventDeactivations.map((d) => ({ key: kvsKey.deactivatedEvent(d.eventId), value: epochSeconds(d.deactivatedAt, now) })),
    ...feed.eventReactivations.map((r) => ({ key: kvsKey.deactivatedEvent(r.eventId), value: null })),
    ...feed.endedSessions.map((s) => ({ key: kvsKey.endedSession(s.sessionId), value: endedSessionKeptUntil(s, now) })),
  ];
}

export type CodeAccess = Pick<CodeRecord, 'code' | 'isRevoked' | 'revokedAt' | 'endedSessions'>;
export type EventAccess = Pick<EventRecord, 'id' | 'isActive' | 'activeChangedAt'>;

/** The entries a code should have: revoked, and its recently ended sessions. */
export function entriesOfCode(code: CodeAccess, now: Date): Map<string, string> {
  const entries = new Map<string, string>();
  if (code.isRevoked) entries.set(kvsKey.revokedCode(code.code), epochSeconds(code.revokedAt, now));
  for (const ended of code.endedSessions) {
    const value = endedSessionKeptUntil(ended, now);
    const key = kvsKey.endedSession(ended.sessionId);
    if (!isExpiredSessionEntry(key, value, now)) entries.set(key, value);
  }
  return entries;
}

/** The entry an event should have: present while it is deactivated (or deleted: its tombstone is inactive). */
export function entriesOfEvent(event: EventAccess, now: Date): Map<string, string> {
  const entries = new Map<string, string>();
  if (!event.isActive) entries.set(kvsKey.deactivatedEvent(event.id), epochSeconds(event.activeChangedAt, now));
  return entries;
}

/** Session entries past their retention are useless to the edge: every credential they could deny has expired. */
export function isExpiredSessionEntry(key: string, value: string, now: Date): boolean {
  return ENDED_SESSION.test(key) && Number(value) < now.getTime() / 1000;
}

/** What turns `before` into `after`, restricted to this project's keys. */
export function diffEntries(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): KvsChange[] {
  const changes: KvsChange[] = [];
  for (const [key, value] of after) if (before.get(key) !== value) changes.push({ key, value });
  for (const key of before.keys()) if (!after.has(key) && OWN_KEY.test(key)) changes.push({ key, value: null });
  return changes;
}

/**
 * The KeyValueStore entries that the access state asks for, in the scheme of kvs-scheme.ts:
 * written by edge-sync (functions/handlers/edge-sync.ts), in AWS and in `npm start` alike.
 */
import { PLAYBACK_TOKEN_TTL_SECONDS } from '../domain/playback-claims';
import { eventDenyUntil, sessionDenyUntil } from '../domain/access';
import type { CodeAccessState, EventAccessState, GeoRule } from '../domain/records';
import type { SigningKeys } from '../domain/signing-keys';
import { markKeyOf } from '../domain/watermark';
import { isDenyKey, kvsKey, kvsValue, parseDenyUntilValue, parseKvsKey } from './kvs-scheme';

/** Clocks of the API, the edge and this writer may differ; a deny entry outlives its credentials by this much. */
const CLOCK_SKEW_SECONDS = 300;

/** `value: null` deletes the key. */
export interface KvsChange {
  key: string;
  value: string | null;
}

/** A deny entry's value; a missing or unreadable time counts as `fallback`, so every entry can expire. */
function denyUntil(iso: string | null | undefined, fallback: Date): string {
  const ms = iso ? Date.parse(iso) : Number.NaN;
  return kvsValue.denyUntil((Number.isNaN(ms) ? fallback.getTime() : ms) / 1000);
}

/** A code revoked before codes kept `denyUntil`: its revocation plus one JWT life. */
function revokedUntil(revokedAt: string, now: Date): string {
  return new Date((Date.parse(revokedAt) || now.getTime()) + PLAYBACK_TOKEN_TTL_SECONDS * 1000).toISOString();
}

/** `k:<kid>` entries: every verifying key, base64url as the edge decodes it. */
export function signingKeyEntries(signingKeys: SigningKeys): Map<string, string> {
  const entries = new Map<string, string>();
  for (const [kid, secret] of signingKeys.keys) {
    entries.set(kvsKey.signingKey(kid), kvsValue.signingKey(secret));
  }
  return entries;
}

/** The entries a code should have: revoked, and its ended sessions whose credentials may still work. */
export function entriesOfCode(code: CodeAccessState, now: Date): Map<string, string> {
  const entries = new Map<string, string>();
  if (code.isRevoked) {
    const revokedAt = code.revokedAt ?? code.revokedChangedAt ?? '';
    entries.set(kvsKey.revokedCode(code.code), denyUntil(code.denyUntil ?? revokedUntil(revokedAt, now), now));
  }
  for (const ended of code.endedSessions) entries.set(kvsKey.endedSession(ended.sessionId), denyUntil(sessionDenyUntil(ended), now));
  return withoutExpired(entries, now);
}

/** The entry an event should have: present while it is deactivated (or deleted: its tombstone is inactive). */
export function entriesOfEvent(event: EventAccessState, now: Date): Map<string, string> {
  const entries = new Map<string, string>();
  if (!event.isActive) entries.set(kvsKey.deactivatedEvent(event.id), denyUntil(eventDenyUntil(event), now));
  return withoutExpired(entries, now);
}

/**
 * The entry of an event's country rule: `g:<eventId>` while the event exists and has a rule (null or
 * undefined: the event is anywhere, or gone). One entry per event, never per code or viewer.
 */
export function entriesOfGeoRule(eventId: string, geo: GeoRule | undefined): Map<string, string> {
  return geo ? new Map([[kvsKey.geoRule(eventId), kvsValue.geoRule(geo)]]) : new Map();
}

/**
 * The entry of an event's mark key: `w:<eventId>` while the event exists and was ever watermarked
 * (`watermarkSince` set: its marked parts outlive the flag). One entry per event, never per viewer.
 */
export function entriesOfMarkKey(eventId: string, everWatermarked: boolean, watermarkSecret: string): Map<string, string> {
  return everWatermarked ? new Map([[kvsKey.markKey(eventId), kvsValue.markKey(markKeyOf(watermarkSecret, eventId))]]) : new Map();
}

function withoutExpired(entries: Map<string, string>, now: Date): Map<string, string> {
  for (const [key, value] of entries) if (isExpiredDenyEntry(key, value, now)) entries.delete(key);
  return entries;
}

/** A deny entry past its `until` (plus clock skew) is useless to the edge: every credential it could deny has expired. */
export function isExpiredDenyEntry(key: string, value: string, now: Date): boolean {
  return isDenyKey(key) && parseDenyUntilValue(value) + CLOCK_SKEW_SECONDS < now.getTime() / 1000;
}

/** What turns `before` into `after`, restricted to this project's keys. */
export function diffEntries(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): KvsChange[] {
  const changes: KvsChange[] = [];
  for (const [key, value] of after) if (before.get(key) !== value) changes.push({ key, value });
  for (const key of before.keys()) if (!after.has(key) && parseKvsKey(key) !== null) changes.push({ key, value: null });
  return changes;
}

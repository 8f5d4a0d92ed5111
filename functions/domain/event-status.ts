import type { EventRecord } from './records';

export type EventStatus = 'not-started' | 'live' | 'ended' | 'recording';

/** When codes of the event stop working: `accessWindowHours` after the event's end. */
export function accessEndsAt(event: Pick<EventRecord, 'endsAt' | 'accessWindowHours'>): string {
  return new Date(Date.parse(event.endsAt) + event.accessWindowHours * 3_600_000).toISOString();
}

/** The lease of an ingest that stopped renewing (killed mid-show): the show is over, its recording not yet finalized. */
export function hasExpiredLease(event: Pick<EventRecord, 'leaseHolder' | 'leaseExpiresAt'>, now: Date): boolean {
  return Boolean(event.leaseHolder && event.leaseExpiresAt && event.leaseExpiresAt <= now.toISOString());
}

/**
 * `live` only while a publisher is on air: while its ingest's lease is fresh
 * (stream-lease.ts, the one mechanism). Otherwise: once a stream has happened
 * and while codes still work, `recording` (its HLS can be watched); before the
 * scheduled end, `not-started` (waiting for the streamer); else `ended`.
 */
export function eventStatus(event: EventRecord, now: Date): EventStatus {
  const at = now.toISOString();
  if (event.leaseHolder && event.leaseExpiresAt && event.leaseExpiresAt > at) return 'live';
  const happened = event.lastLiveEndedAt || hasExpiredLease(event, now);
  if (happened && at < accessEndsAt(event)) return 'recording';
  if (at < event.endsAt) return 'not-started';
  return 'ended';
}

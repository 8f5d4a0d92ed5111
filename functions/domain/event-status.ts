import type { EventRecord } from './records';

export type EventStatus = 'not-started' | 'live' | 'ended' | 'recording';

/** When codes of the event stop working: `accessWindowHours` after the event's end. */
export function accessEndsAt(event: Pick<EventRecord, 'endsAt' | 'accessWindowHours'>): string {
  return new Date(Date.parse(event.endsAt) + event.accessWindowHours * 3_600_000).toISOString();
}

/**
 * `live` only while a publisher is on air. Otherwise: once a stream has
 * happened and while codes still work, `recording` (its HLS can be watched);
 * before the scheduled end, `not-started` (waiting for the streamer); else `ended`.
 */
export function eventStatus(event: EventRecord, now: Date): EventStatus {
  if (event.liveSince) return 'live';
  const at = now.toISOString();
  if (event.lastLiveEndedAt && at < accessEndsAt(event)) return 'recording';
  if (at < event.endsAt) return 'not-started';
  return 'ended';
}

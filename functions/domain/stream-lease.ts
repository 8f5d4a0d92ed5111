import { hasExpiredLease } from './event-status';
import type { EventStore } from './event-store';
import type { EventRecord } from './records';

/** The port to the media bucket: writes an event's final (VOD) playlists from its recording index. */
export interface RecordingFinalizer {
  finalize(eventId: string): Promise<void>;
}

export interface LeaseDeps {
  stores: { events: EventStore };
  now(): Date;
  /** Null where the media bucket is not reachable: an expired lease then only changes the status. */
  recordings?: RecordingFinalizer | null;
}

/**
 * One ingest process on air per event. The ingest takes the lease when a
 * publish is admitted and renews it every few seconds (docs/ingest.md); a
 * process that dies stops renewing, and its lease runs out this long after
 * the last renewal: the event then leaves `live` and another process may take
 * the show over.
 */
export const LEASE_SECONDS = 15;

/**
 * What an acquire was: a show starting (no lease, or this process's own that had run out), the
 * renewal of a live one, or a take-over of the lease of a process that died mid-show.
 */
export type LeaseChange = 'started' | 'renewed' | 'taken-over';

/** LeaseHeld (answered 409) while another process holds it; NotFound for an unknown event. */
export async function acquireLease(app: LeaseDeps, eventId: string, holder: string) {
  const now = app.now();
  const expiresAt = new Date(now.getTime() + LEASE_SECONDS * 1000).toISOString();
  // Read first only to tell the audit log what happened; the conditional write alone decides.
  const before = await app.stores.events.getEvent(eventId);
  const event = await app.stores.events.acquireStreamLease(eventId, { holder, now: now.toISOString(), expiresAt });
  const previous = before?.leaseHolder ?? null;
  const change: LeaseChange =
    previous === holder && before!.leaseExpiresAt! > now.toISOString() ? 'renewed' : previous && previous !== holder ? 'taken-over' : 'started';
  return { lease: { eventId, holder, expiresAt }, change, event };
}

/** `ended`: the event whose show this release ended, or null when the lease was not (any more) this holder's. */
export async function releaseLease(app: LeaseDeps, eventId: string, holder: string) {
  const before = await app.stores.events.getEvent(eventId);
  const event = await app.stores.events.releaseStreamLease(eventId, { holder, now: app.now().toISOString() });
  return { answer: { eventId, released: true as const }, ended: before?.leaseHolder === holder ? event : null };
}

/**
 * An ingest died mid-show (its lease ran out): write the whole show's final
 * playlists from what it stored, then end that very lease, so the recording
 * is watchable with nobody pressing anything. Runs on a status read; a lease
 * renewed or taken over meanwhile is left alone.
 */
export async function settleExpiredLease(app: LeaseDeps, event: EventRecord): Promise<EventRecord> {
  if (!app.recordings || !hasExpiredLease(event, app.now())) return event;
  await app.recordings.finalize(event.id);
  return app.stores.events.releaseStreamLease(event.id, { holder: event.leaseHolder!, now: app.now().toISOString(), expiresAt: event.leaseExpiresAt! });
}

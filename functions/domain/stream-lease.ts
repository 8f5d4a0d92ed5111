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
}

export interface SweepDeps extends LeaseDeps {
  recordings: RecordingFinalizer;
}

/**
 * One ingest process on air per event. The ingest takes the lease when a
 * publish is admitted and renews it every few seconds (docs/ingest.md); a
 * process that dies stops renewing, and its lease runs out this long after
 * the last renewal: the event then leaves `live` and another process may take
 * the show over.
 */
export const LEASE_SECONDS = 15;

/** LeaseHeld (answered 409) while another process holds it; NotFound for an unknown event. */
export async function acquireLease(app: LeaseDeps, eventId: string, holder: string): Promise<{ eventId: string; holder: string; expiresAt: string }> {
  const now = app.now();
  const expiresAt = new Date(now.getTime() + LEASE_SECONDS * 1000).toISOString();
  await app.stores.events.acquireStreamLease(eventId, { holder, now: now.toISOString(), expiresAt });
  return { eventId, holder, expiresAt };
}

export async function releaseLease(app: LeaseDeps, eventId: string, holder: string): Promise<{ eventId: string; released: true }> {
  await app.stores.events.releaseStreamLease(eventId, { holder, now: app.now().toISOString() });
  return { eventId, released: true };
}

/** A show is "scheduled" from this long before its start: the streamer connects and tests early. */
export const SCHEDULE_LEAD_SECONDS = 30 * 60;

/**
 * Active, unarchived events whose schedule (from a little before the start to the end) includes
 * `now`: the ingest must be up for them (the alarm "ingest down during a scheduled show").
 */
export function scheduledShows(events: Pick<EventRecord, 'isActive' | 'isArchived' | 'startsAt' | 'endsAt'>[], now: Date): number {
  const from = now.getTime();
  return events.filter(
    (event) => event.isActive && !event.isArchived && Date.parse(event.startsAt) - SCHEDULE_LEAD_SECONDS * 1000 <= from && from < Date.parse(event.endsAt),
  ).length;
}

/**
 * Ingests that died mid-show (their lease ran out without a release): write each show's final
 * playlists from what it stored, then end that very lease, so the recording is watchable with
 * nobody pressing anything. The recording sweep runs this every minute; a lease renewed or taken
 * over meanwhile is left alone. A show that fails keeps its lease, so the next run tries it again,
 * and does not hold up the others.
 */
export async function finalizeExpiredLeases(deps: SweepDeps): Promise<{ finalized: string[]; failed: { eventId: string; error: unknown }[] }> {
  const now = deps.now();
  const expired = (await deps.stores.events.listStreamLeases()).filter((lease) =>
    hasExpiredLease({ leaseHolder: lease.holder, leaseExpiresAt: lease.expiresAt }, now),
  );
  const finalized: string[] = [];
  const failed: { eventId: string; error: unknown }[] = [];
  for (const { eventId, holder, expiresAt } of expired) {
    try {
      await deps.recordings.finalize(eventId);
      await deps.stores.events.releaseStreamLease(eventId, { holder, now: deps.now().toISOString(), expiresAt });
      finalized.push(eventId);
    } catch (error) {
      failed.push({ eventId, error });
    }
  }
  return { finalized, failed };
}

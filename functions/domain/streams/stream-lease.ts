import { hasExpiredLease } from '../event-status';
import type { EventStore } from '../events';
import type { EventRecord } from '../records';
import { recordAudit, type Actor, type AuditAction, type AuditDeps } from '../audit';

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

/**
 * What an acquire was: a show starting (no lease, or this process's own that had run out), the
 * renewal of a live one, or a take-over of the lease of a process that died mid-show.
 */
export type LeaseChange = 'started' | 'renewed' | 'taken-over';

/** What the ingest reported about an event's show, in the audit log by the ingest (`actor`). */
function recordShow(deps: AuditDeps, actor: Actor, action: AuditAction, event: EventRecord, holder: string) {
  return recordAudit(deps, actor, { action, eventId: event.id, eventTitle: event.title, target: event.title, details: { ingest: holder } });
}

/**
 * LeaseHeld (answered 409) while another process holds it; NotFound for an unknown event. Renewals
 * (every few seconds) are not worth an audit entry; a show starting or taken over from a dead ingest is.
 */
export async function acquireLease(app: LeaseDeps & AuditDeps, actor: Actor, eventId: string, holder: string) {
  const now = app.now();
  const expiresAt = new Date(now.getTime() + LEASE_SECONDS * 1000).toISOString();
  // Read first only to tell the audit log what happened; the conditional write alone decides.
  const before = await app.stores.events.getEvent(eventId);
  const event = await app.stores.events.acquireStreamLease(eventId, { holder, now: now.toISOString(), expiresAt });
  const previous = before?.leaseHolder ?? null;
  const change: LeaseChange =
    previous === holder && before!.leaseExpiresAt! > now.toISOString() ? 'renewed' : previous && previous !== holder ? 'taken-over' : 'started';
  if (change !== 'renewed') await recordShow(app, actor, change === 'started' ? 'stream.start' : 'stream.takeover', event, holder);
  return { lease: { eventId, holder, expiresAt }, change, event };
}

/**
 * `ended`: the event whose show this release ended (in the audit log by `actor`), or null when the
 * lease was not (any more) this holder's.
 */
export async function releaseLease(app: LeaseDeps & AuditDeps, actor: Actor, eventId: string, holder: string) {
  const before = await app.stores.events.getEvent(eventId);
  const event = await app.stores.events.releaseStreamLease(eventId, { holder, now: app.now().toISOString() });
  const ended = before?.leaseHolder === holder ? event : null;
  if (ended) await recordShow(app, actor, 'stream.stop', ended, holder);
  return { answer: { eventId, released: true as const }, ended };
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

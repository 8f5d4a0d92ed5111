import { hasExpiredLease } from '../event-status';
import type { EventStore } from '../events';
import type { EncoderRole, EventRecord } from '../records';
import { LeaseHeld, NotFound } from '../errors';
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
 * A standby registration lasts this long: the standby process re-registers every few hundred ms while its
 * encoder is healthy, so the holder hands over only to a standby that is really there.
 */
export const STANDBY_SECONDS = 2;

/** The fresh standby of a lease (another process than the holder), or null. */
export function freshStandby(event: EventRecord, now: Date): { holder: string; role: EncoderRole } | null {
  const { standbyHolder, standbyRole, standbyExpiresAt } = event;
  if (!standbyHolder || !standbyRole || !standbyExpiresAt || standbyHolder === event.leaseHolder) return null;
  return standbyExpiresAt > now.toISOString() ? { holder: standbyHolder, role: standbyRole } : null;
}

const freshUntil = (event: EventRecord, now: Date) => (event.standbyExpiresAt ?? '') > now.toISOString();

/** What the holder learns with each acquire: its lease, and whether another process stands by to take over. */
function holderAnswer(event: EventRecord, now: Date) {
  return { eventId: event.id, holder: event.leaseHolder!, expiresAt: event.leaseExpiresAt!, role: event.leaseRole ?? 'primary', onAir: true as const, standby: freshStandby(event, now) };
}

/**
 * Takes or renews the lease, with the encoder `role` the process puts on air. While another process
 * holds it: a process with the other encoder becomes its standby (200 with `onAir: false`); one with
 * the same encoder gets LeaseHeld (409: "already publishing"). NotFound for an unknown event.
 * Renewals (every few seconds) are not worth an audit entry; a show starting or taken over from a dead
 * ingest is, and so is another encoder going on air.
 */
export async function acquireLease(app: LeaseDeps & AuditDeps, actor: Actor, eventId: string, holder: string, role: EncoderRole = 'primary', standby?: EncoderRole) {
  const now = app.now();
  const expiresAt = new Date(now.getTime() + LEASE_SECONDS * 1000).toISOString();
  // Read first to tell the audit log what happened and to know the lease's role; the conditional writes decide.
  const before = await app.stores.events.getEvent(eventId);
  if (before?.leaseHolder && before.leaseHolder !== holder && before.leaseExpiresAt! > now.toISOString()) {
    return standBy(app, before, holder, role, now);
  }
  const event = await app.stores.events.acquireStreamLease(eventId, { holder, now: now.toISOString(), expiresAt, role });
  const previous = before?.leaseHolder ?? null;
  const change: LeaseChange =
    previous === holder && before!.leaseExpiresAt! > now.toISOString() ? 'renewed' : previous && previous !== holder ? 'taken-over' : 'started';
  if (change !== 'renewed') await recordShow(app, actor, change === 'started' ? 'stream.start' : 'stream.takeover', event, holder);
  else if ((before!.leaseRole ?? 'primary') !== role) await recordFailover(app, actor, event, holder, before!.leaseRole ?? 'primary', role);
  if (standby && standby !== role) await holdStandbyPlace(app, event, standby, now, LEASE_SECONDS);
  // Its other encoder gone: the place is free at once for that encoder connecting to another process.
  else if (event.standbyHolder === holder && event.standbyRole && freshUntil(event, now)) await holdStandbyPlace(app, event, event.standbyRole, now, 0);
  return { lease: holderAnswer(event, now), change, event };
}

/**
 * The holder has the other encoder too: it takes the standby place itself (until its next renewal is
 * due), so a second encoder of that role on another process is refused. A place another process
 * holds fresh stays that process's.
 */
async function holdStandbyPlace(app: LeaseDeps, event: EventRecord, standby: EncoderRole, now: Date, seconds: number) {
  const expiresAt = new Date(now.getTime() + seconds * 1000).toISOString();
  const seen = { holder: event.leaseHolder!, role: event.leaseRole ?? null };
  await app.stores.events
    .registerStandby(event.id, { holder: event.leaseHolder!, role: standby, now: now.toISOString(), expiresAt, seen })
    .catch((error: unknown) => {
      if (!(error instanceof LeaseHeld)) throw error;
    });
}

/** The other encoder of a show on air elsewhere waits as standby; the same encoder twice is refused. */
async function standBy(app: LeaseDeps, before: EventRecord, holder: string, role: EncoderRole, now: Date) {
  if ((before.leaseRole ?? 'primary') === role) throw new LeaseHeld(`event ${before.id}`);
  const standbyUntil = new Date(now.getTime() + STANDBY_SECONDS * 1000).toISOString();
  const seen = { holder: before.leaseHolder!, role: before.leaseRole ?? null };
  const event = await app.stores.events.registerStandby(before.id, { holder, role, now: now.toISOString(), expiresAt: standbyUntil, seen });
  return { lease: { eventId: event.id, holder, role, onAir: false as const, standbyUntil, onAirRole: event.leaseRole ?? 'primary' }, change: 'standby' as const, event };
}

function recordFailover(deps: AuditDeps, actor: Actor, event: EventRecord, holder: string, from: EncoderRole, to: EncoderRole) {
  return recordAudit(deps, actor, { action: 'stream.failover', eventId: event.id, eventTitle: event.title, target: event.title, details: { ingest: holder, from, to } });
}

/**
 * The holder's encoder failed and another process stands by with the other one: the lease moves to
 * it in one write, so the event never leaves `live`. The holder calls this after it stored its last
 * segment (the standby then opens the recording, and playlists never go back). LeaseHeld (409) when no
 * fresh standby is there any more: the holder keeps the show (its reconnect window).
 */
export async function handOverLease(app: LeaseDeps & AuditDeps, actor: Actor, eventId: string, holder: string) {
  const now = app.now();
  const before = await app.stores.events.getEvent(eventId);
  const to = before && before.leaseHolder === holder ? freshStandby(before, now) : null;
  if (!before || !to) throw before ? new LeaseHeld(`event ${eventId}`) : new NotFound('event');
  const expiresAt = new Date(now.getTime() + LEASE_SECONDS * 1000).toISOString();
  const event = await app.stores.events.handOverStreamLease(eventId, { holder, to, now: now.toISOString(), expiresAt });
  await recordFailover(app, actor, event, to.holder, before.leaseRole ?? 'primary', to.role);
  return { eventId, holder: to.holder, role: to.role, expiresAt };
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

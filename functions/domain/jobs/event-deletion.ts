/**
 * Deleting an event from the admin API: within the request up to a size, by a
 * background job past it (event-deletion-job.ts). Either way the tombstone is
 * written before the answer, so from then on the event is gone from every list,
 * its codes are refused and its viewers cut at the edge as by a deactivation.
 */
import type { AudienceStore } from '../audience';
import type { CodeStore } from '../codes';
import type { EventStore } from '../events';
import { recordAudit, type Actor } from '../audit';
import type { JobRecord } from './job-store';
import { recordJobStart, startJob, type JobStartDeps } from './jobs';
import type { EventRecord } from '../records';

/**
 * Events of up to this many codes (their code count) are deleted within the request: about 2 s of
 * deletes on `npm start`, well inside API Gateway's 29 s in AWS (README).
 */
export const INLINE_DELETE_CODES = 5_000;

export const deletesInline = (event: Pick<EventRecord, 'tokenCount'>) => event.tokenCount <= INLINE_DELETE_CODES;

/**
 * Deletes the event: a deactivated tombstone first (from then on validation, refresh and the feed
 * treat it as gone; it keeps what the edge needs to deny its credentials), then its codes and audience,
 * within the call or, with `inBackground`, by the job that starts (`deleteEventInBackground`, below). That job is
 * queued just before the tombstone, so a queue that refuses leaves the event as it was, to be deleted
 * again; its steps wait for the tombstone.
 */
export async function deleteEvent(deps: { stores: { audience: AudienceStore; codes: CodeStore; events: EventStore }; now(): Date }, id: string): Promise<void>;
export async function deleteEvent<T>(deps: { stores: { audience: AudienceStore; codes: CodeStore; events: EventStore }; now(): Date }, id: string, inBackground: () => Promise<T>): Promise<T>;
export async function deleteEvent<T>(deps: { stores: { audience: AudienceStore; codes: CodeStore; events: EventStore }; now(): Date }, id: string, inBackground?: () => Promise<T>): Promise<T | void> {
  const job = inBackground && (await inBackground());
  await deps.stores.events.deleteEvent(id, deps.now().toISOString());
  if (inBackground) return job;
  await deps.stores.codes.deleteEventCodes(id);
  await deps.stores.audience.deleteEventAudience(id);
}

type DeletionDeps = Parameters<typeof recordAudit>[0] & { stores: { audience: AudienceStore; codes: CodeStore; events: EventStore } };

/** Deletes the event within the call (`deletesInline`), by `actor`, in the audit log. The event's log outlives it (its retention). */
export async function deleteEventNow(deps: DeletionDeps, actor: Actor, event: EventRecord): Promise<void> {
  await deleteEvent(deps, event.id);
  await recordAudit(deps, actor, { action: 'event.delete', eventId: event.id, eventTitle: event.title, target: event.title });
}

/** The event's tombstone, then a `delete-event` job for its codes, their sessions and its audience data; the job's start and the deletion in the audit log, by `actor`. */
export async function deleteEventInBackground(deps: JobStartDeps, actor: Actor, event: EventRecord): Promise<JobRecord> {
  const job = await deleteEvent(deps, event.id, () => startJob(deps, { kind: 'delete-event', eventId: event.id, total: event.tokenCount, params: {}, actor }));
  await recordJobStart(deps, actor, job);
  await recordAudit(deps, actor, { action: 'event.delete', eventId: event.id, eventTitle: event.title, target: event.title });
  return job;
}

/**
 * Cancelling a show from the admin API (`POST /api/admin/events/:id/cancel { reason }`): the event is marked
 * cancelled and its sale closed in the request (from then on no checkout opens, and the sale link says why), and
 * an `event-cancellation` job (event-cancellation-job.ts) refunds, tells and revokes. The job is queued just before
 * the mark, so a queue that refuses leaves the event as it was, to be cancelled again; its steps wait for the mark.
 */
import * as z from 'zod';
import { recordAudit, type Actor } from '../audit';
import { Conflict, NotFound } from '../errors';
import { parseInput } from '../inputs';
import type { CancellationParams } from './event-cancellation-job';
import type { JobRecord } from './job-store';
import { recordJobStart, startJob, type JobStartDeps } from './jobs';

export const cancelEventInput = z.object({ reason: z.string().trim().min(1, 'must be 1 to 500 characters').max(500, 'must be 1 to 500 characters') });

/** Cancels the event by `actor` (audited `event.cancel`, and the job's start); Conflict `event-cancelled` the second time. */
export async function cancelEvent(deps: JobStartDeps & { config: { sessionTimeoutSeconds: number } }, actor: Actor, eventId: string, body: unknown): Promise<JobRecord> {
  const { reason } = parseInput(cancelEventInput, body);
  const event = await deps.stores.events.getEvent(eventId);
  if (!event) throw new NotFound('event');
  if (event.cancelledAt) throw new Conflict('event-cancelled');
  const at = deps.now().toISOString();
  const params: CancellationParams = { cancelledAt: at, reason, sessionTimeoutSeconds: deps.config.sessionTimeoutSeconds };
  const job = await startJob(deps, { kind: 'event-cancellation', eventId, total: event.tokenCount, params: { ...params }, actor });
  const closedSale = event.sale ? { ...event.sale, open: false } : null;
  // Lost to a parallel cancellation: that one's job does the work (this one's stops at its first step).
  if (!(await deps.stores.events.cancelEvent(eventId, { at, reason, closedSale }))) throw new Conflict('event-cancelled');
  await recordJobStart(deps, actor, job);
  await recordAudit(deps, actor, { action: 'event.cancel', eventId, eventTitle: event.title, target: event.title, details: { reason, jobId: job.id } });
  return job;
}

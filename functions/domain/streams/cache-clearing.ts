import { recordAudit, type Actor, type AuditDeps } from '../audit';
import type { EventRecord } from '../records';
import type { MediaCache } from './media-cache';

/** Drops the event's cached manifests and segments, by `actor`, in the audit log. */
export async function clearMediaCache(deps: { mediaCache: MediaCache } & AuditDeps, actor: Actor, event: Pick<EventRecord, 'id' | 'title'>): Promise<void> {
  await deps.mediaCache.clear(event.id);
  await recordAudit(deps, actor, { action: 'cache.clear', eventId: event.id, eventTitle: event.title, target: event.title });
}

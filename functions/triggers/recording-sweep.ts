import type { EventStore } from '../domain/events';
import { finalizeExpiredLeases, scheduledShows, type RecordingFinalizer } from '../domain/streams';
import { logger } from '../adapters/telemetry';
import { LIST_LIMITS } from '../domain/config';

export interface RecordingSweepDeps {
  events: EventStore;
  recordings: RecordingFinalizer;
  /** Where the count of shows scheduled now goes (a CloudWatch metric in AWS; nowhere locally). */
  reportScheduledShows?: (count: number) => void;
  now?: () => Date;
}

/**
 * The recording sweep: the shows whose ingest died get their final playlists, and their lease
 * ends (functions/domain/streams/stream-lease.ts). A show that failed is logged and stays for the next run;
 * the run then fails too, so the function's error alarm sees it. Each run also counts the shows
 * scheduled now, which the alarm "ingest down during a scheduled show" weighs against the ingest's health.
 */
export function createRecordingSweepHandler(deps: RecordingSweepDeps) {
  const now = deps.now ?? (() => new Date());
  return async function recordingSweep(): Promise<{ finalized: string[] }> {
    if (deps.reportScheduledShows) deps.reportScheduledShows(scheduledShows(await deps.events.listEvents(LIST_LIMITS.events), now()));
    const { finalized, failed } = await finalizeExpiredLeases({ stores: { events: deps.events }, recordings: deps.recordings, now });
    for (const eventId of finalized) logger.info('recording finalized after an expired lease', { eventId });
    for (const { eventId, error } of failed) logger.error('recording not finalized, the next sweep tries again', { eventId, error });
    if (failed.length > 0) throw new Error(`recordings not finalized: ${failed.map((f) => f.eventId).join(', ')}`);
    return { finalized };
  };
}

/**
 * Deleting a large event's codes (and with them their sessions) and its
 * audience data as a background job, after its tombstone was written
 * (event-admin.ts `deleteEvent`): the event is gone for every read, its codes
 * refused and its viewers cut at the edge from the answer on; the job removes
 * what is left. Deleting twice deletes nothing more, so any step may run again.
 */
import { codesText, walkLanes, walkStep } from './code-walk';
import type { JobKind } from './job-kind';

export const eventDeletionJob: JobKind = {
  permission: 'events:edit',

  describe: (job) => `the deleted event's ${codesText(job.total)}`,

  lanes: (job) => walkLanes(job.total),

  runStep: (deps, job, laneIndex, lane) =>
    walkStep(deps, job, laneIndex, lane, async (codes) => {
      await deps.stores.codes.deleteCodes(codes.map((code) => code.code));
      return codes.length;
    }),

  async finish(deps, job) {
    await deps.stores.audience.deleteEventAudience(job.eventId);
    return null;
  },
};

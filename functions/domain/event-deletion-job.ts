/**
 * Deleting a large event's codes (and with them their sessions) and its
 * audience data as a background job, once its tombstone is written
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

  async runStep(deps, job, laneIndex, lane) {
    // Queued just before the tombstone (event-admin.ts `deleteEvent`): a step never deletes the codes of an
    // event still there. It is tried again; if the tombstone never came, the job is given up with this reason.
    if (await deps.stores.events.getEvent(job.eventId)) throw new Error('The event is not deleted: delete it again');
    return walkStep(deps, job, laneIndex, lane, async (codes) => {
      await deps.stores.codes.deleteCodes(codes.map((code) => code.code));
      return codes.length;
    });
  },

  async finish(deps, job) {
    await deps.stores.audience.deleteEventAudience(job.eventId);
    return null;
  },
};

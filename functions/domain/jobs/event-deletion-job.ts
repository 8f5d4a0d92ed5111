/**
 * Deleting a large event's codes (and with them their sessions) and its
 * audience data as a background job, once its tombstone is written
 * (event-deletion.ts `deleteEvent`): the event is gone for every read, its codes
 * refused and its viewers cut at the edge from the answer on; the job removes
 * what is left. Deleting twice deletes nothing more, so any step may run again.
 */
import { CODES_PER_WALK_STEP, codesText, walkLanes, walkStep } from './code-walk';
import { ItemsFailed } from '../errors';
import type { JobKind } from './job-kind';

export const eventDeletionJob: JobKind = {
  permission: 'events:edit',

  describe: (job) => `the deleted event's ${codesText(job.total)}`,

  lanes: (job) => walkLanes(job.total),

  async runStep(deps, job, laneIndex, lane, timeLeft) {
    // Queued just before the tombstone (event-deletion.ts `deleteEvent`): a step never deletes the codes of an
    // event still there. It is tried again; if the tombstone never came, the job is given up with this reason.
    if (await deps.stores.events.getEvent(job.eventId)) throw new Error('The event is not deleted: delete it again');
    // One page a step: a deleted page leaves the listing, so the walk's position after a part of a step's
    // codes is no place for a duplicate delivery to agree on (its deletions would go uncounted).
    return walkStep(
      deps,
      job,
      laneIndex,
      lane,
      timeLeft,
      async (codes) => {
        try {
          await deps.stores.codes.deleteCodes(codes.map((code) => code.code));
        } catch (error) {
          throw new ItemsFailed(`${codesText(codes.length)} could not be deleted`, error);
        }
        return codes.length;
      },
      CODES_PER_WALK_STEP,
    );
  },

  async finish(deps, job) {
    await deps.stores.audience.deleteEventAudience(job.eventId);
    return null;
  },
};

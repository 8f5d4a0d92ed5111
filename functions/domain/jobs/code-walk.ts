/**
 * Jobs that walk an event's codes (deleting the event, revoking by filter):
 * each lane walks one part of the codes (code-store.ts `listCodePage` with
 * `part`), newest first, up to 1,000 codes a step in pages (for a revocation
 * of 25, one round of its writes: done in a second even on a slow worker). The
 * lane's cursor says where its next page starts and what the lane counted so
 * far; the runner moves it by one conditional write per step, so a step run
 * twice counts once, and a step short of time commits the pages it did.
 */
import { CODES_PER_SECOND_PER_LANE } from './code-generation-job';
import type { JobDeps, StepResult } from './job-kind';
import type { JobRecord, LaneState } from './job-store';
import type { CodeSummary } from '../records';
import { workUntilShort } from './step-work';

/** Codes per step (one queue message), when time allows. */
export const CODES_PER_WALK_STEP = 1000;
/** Codes per page of a revocation: the unit a step commits. */
export const CODES_PER_WALK_PAGE = 25;
/** Lanes of one walk: each walks 4 of the event's 16 index shards, at generation's pace (its writes per shard stay as low). */
export const WALK_LANES = 4;

interface WalkPosition {
  /** The lane's next page (`listCodePage`'s cursor); null before its first. */
  page: string | null;
  /** What the lane's steps counted so far (the kind says what). */
  counted: number;
}

const positionOf = (lane: LaneState): WalkPosition => (lane.cursor ? (JSON.parse(lane.cursor) as WalkPosition) : { page: null, counted: 0 });

/** Lanes of a walk over `total` codes: fewer for a small event (one lane walks every code). */
export const walkLanes = (total: number) => Math.max(1, Math.min(WALK_LANES, Math.ceil(total / CODES_PER_WALK_STEP)));

/** What the lanes of a finished walk counted together. */
export const walkCounted = (job: Pick<JobRecord, 'lanes'>) => job.lanes.reduce((sum, lane) => sum + positionOf(lane).counted, 0);

/**
 * One step of a walk: the lane's next pages of codes go to `visit`, which returns how many it counts
 * (or throws ItemsFailed, after trying every code of its page), at the lane's pace, until the step's
 * codes are walked or its time is short. The step's result moves the lane past the pages visited.
 */
export async function walkStep(
  deps: JobDeps,
  job: JobRecord,
  laneIndex: number,
  lane: LaneState,
  timeLeft: () => number,
  visit: (codes: CodeSummary[]) => Promise<number>,
  pageSize = CODES_PER_WALK_PAGE,
): Promise<StepResult> {
  const work = await workUntilShort<WalkPosition>({
    from: positionOf(lane),
    timeLeft,
    itemsPerSecond: CODES_PER_SECOND_PER_LANE,
    maxItems: CODES_PER_WALK_STEP,
    unit: async (position) => {
      const page = await deps.stores.codes.listCodePage({
        eventId: job.eventId,
        filter: {},
        cursor: position.page,
        limit: pageSize,
        part: { index: laneIndex, of: job.lanes.length },
      });
      const counted = await visit(page.codes);
      return { items: page.codes.length, next: { page: page.nextCursor, counted: position.counted + counted }, end: page.nextCursor === null };
    },
  });
  return { items: work.items, finished: work.end, cursor: JSON.stringify(work.position) };
}

/** "25,000 codes": what a job over codes works on, in the audit log's words. */
export const codesText = (count: number) => `${count.toLocaleString('en-US')} code${count === 1 ? '' : 's'}`;

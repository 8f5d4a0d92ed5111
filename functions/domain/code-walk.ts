/**
 * Jobs that walk an event's codes (deleting the event, revoking by filter):
 * each lane walks one part of the codes (code-store.ts `listCodePage` with
 * `part`), a page per step, newest first. The lane's cursor says where its
 * next page starts and what the lane counted so far; the runner moves it by
 * one conditional write per step, so a step run twice counts once.
 */
import { CODES_PER_SECOND_PER_LANE } from './code-generation-job';
import type { JobDeps, StepResult } from './job-kind';
import type { JobRecord, LaneState } from './job-store';
import type { CodeSummary } from './records';

/** Codes per step (one queue message). */
export const CODES_PER_WALK_STEP = 1000;
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
 * One step of a walk: the lane's next page of codes goes to `visit`, which returns how many it counts;
 * the step then waits as long as the lane's pace asks. The step's result moves the lane past the page.
 */
export async function walkStep(
  deps: JobDeps,
  job: JobRecord,
  laneIndex: number,
  lane: LaneState,
  visit: (codes: CodeSummary[]) => Promise<number>,
): Promise<StepResult> {
  const started = Date.now();
  const position = positionOf(lane);
  const page = await deps.stores.codes.listCodePage({
    eventId: job.eventId,
    filter: {},
    cursor: position.page,
    limit: CODES_PER_WALK_STEP,
    part: { index: laneIndex, of: job.lanes.length },
  });
  const counted = await visit(page.codes);
  const paced = started + (page.codes.length / CODES_PER_SECOND_PER_LANE) * 1000 - Date.now();
  if (paced > 0) await new Promise((resolve) => setTimeout(resolve, paced));
  const next: WalkPosition = { page: page.nextCursor, counted: position.counted + counted };
  return { items: page.codes.length, finished: page.nextCursor === null, cursor: JSON.stringify(next) };
}

/** "25,000 codes": what a job over codes works on, in the audit log's words. */
export const codesText = (count: number) => `${count.toLocaleString('en-US')} code${count === 1 ? '' : 's'}`;

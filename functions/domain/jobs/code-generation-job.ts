/**
 * Generating codes as a background job: up to a million codes for one event.
 *
 * Code number i of a job is derived from the job's secret and i (and, after a
 * collision with a code of another batch, a counter), so a step that runs
 * again, whole or after being cut off halfway, makes the very same codes: one
 * that exists already with this job's id is done, none is made twice or lost.
 *
 * A lane makes its chunks of 1,000 codes in turn; its cursor is the number of
 * the next code to make, so a step short of time commits the codes it made and
 * the next step goes on from the first it did not.
 */
import { derivedAccessCode, newCodeRecord } from '../codes';
import { AlreadyExists, ItemsFailed, JobStopped, NotFound } from '../errors';
import { setEventActive } from '../codes';
import type { JobDeps, JobKind } from './job-kind';
import type { JobRecord, LaneState } from './job-store';
import { derivedId } from '../random';
import type { CodeRecord } from '../records';
import { workUntilShort } from './step-work';

/** Codes per step (one queue message). */
export const CODES_PER_STEP = 1000;
/** Lanes of one job: its steps that run at once. */
export const GENERATION_LANES = 4;
/**
 * The most codes a lane writes per second, whatever DynamoDB's latency. Each code is one write to one of
 * its event's 16 `codesByEvent` shards: a job's 4 lanes make 6,000 codes/s, ≈ 375 WCU/s per shard, and
 * the worker's 8 concurrent steps at most 750, under the 1,000 per key (docs/performance.md).
 */
export const CODES_PER_SECOND_PER_LANE = 1500;
/** Code writes in flight within a step: a slice, the unit a step commits. */
const WRITES_IN_FLIGHT = 25;
/** Derivations tried for one code; each further one follows a collision with a code made otherwise. */
const DERIVATIONS = 5;

interface GenerationParams {
  count: number;
  label: string;
}

const paramsOf = (job: Pick<JobRecord, 'params'>) => job.params as unknown as GenerationParams;
const steps = (total: number) => Math.ceil(total / CODES_PER_STEP);

/** The codes of a lane's `step`-th chunk: chunks are dealt to the lanes in turn (lane l does chunks l, l + lanes, …). */
export function stepCodes(job: Pick<JobRecord, 'total' | 'lanes'>, lane: number, step: number): { from: number; to: number; last: boolean } {
  const lanes = job.lanes.length;
  const chunk = lane + step * lanes;
  const from = chunk * CODES_PER_STEP;
  return { from, to: Math.min(job.total, from + CODES_PER_STEP), last: chunk + lanes >= steps(job.total) };
}

/**
 * The codes the lane's current step makes: from its cursor (the next code to make) to the end of that
 * code's chunk. A lane without a cursor is at the start of its step's chunk (its first step's, or an
 * older job's whose steps were whole chunks).
 */
export function laneCodes(job: Pick<JobRecord, 'total' | 'lanes'>, laneIndex: number, lane: Pick<LaneState, 'step' | 'cursor'>) {
  if (lane.cursor === null) return stepCodes(job, laneIndex, lane.step);
  const from = Number(lane.cursor);
  const chunk = Math.floor(from / CODES_PER_STEP);
  return { from, to: Math.min(job.total, (chunk + 1) * CODES_PER_STEP), last: chunk + job.lanes.length >= steps(job.total) };
}

/** The cursor of the lane's next chunk, after the one that holds code `index`. */
const nextChunk = (job: Pick<JobRecord, 'lanes'>, index: number) => String((Math.floor(index / CODES_PER_STEP) + job.lanes.length) * CODES_PER_STEP);

const codesWord = (count: number) => `${count.toLocaleString('en-US')} code${count === 1 ? '' : 's'}`;

function seedOf(job: JobRecord): Buffer {
  if (!job.secret) throw new Error(`job ${job.id} has no secret left`);
  return Buffer.from(job.secret, 'base64url');
}

function derivedCode(job: JobRecord, seed: Buffer, index: number, attempt: number, eventActive: boolean): CodeRecord {
  return newCodeRecord({
    id: derivedId(seed, `id:${index}:${attempt}`),
    code: derivedAccessCode(seed, index, attempt),
    eventId: job.eventId,
    label: paramsOf(job).label,
    createdAt: job.createdAt,
    eventActive,
  });
}

/** Writes code `index` unless an earlier run did; its code and the event flag it carries. */
async function placeCode(deps: JobDeps, job: JobRecord, seed: Buffer, index: number, eventActive: boolean) {
  for (let attempt = 0, vanished = 0; attempt < DERIVATIONS; ) {
    const record = derivedCode(job, seed, index, attempt, eventActive);
    try {
      await deps.stores.codes.createCode(record);
      return { code: record.code, eventActive };
    } catch (error) {
      if (!(error instanceof AlreadyExists)) throw error;
    }
    const existing = await deps.stores.codes.getCode(record.code);
    if (existing?.id === record.id) return { code: record.code, eventActive: existing.eventActive };
    if (existing) attempt++; // held by another code: the next derivation
    else if (++vanished > 3) throw new Error(`code of item ${index} keeps vanishing`); // gone between the two calls: write it again
  }
  throw new Error(`no free code for item ${index} after ${DERIVATIONS} derivations`);
}

/** The code this job made for `index`, or null if it made none (yet). */
async function codeAt(deps: JobDeps, job: JobRecord, seed: Buffer, index: number): Promise<string | null> {
  for (let attempt = 0; attempt < DERIVATIONS; attempt++) {
    const record = derivedCode(job, seed, index, attempt, true);
    const existing = await deps.stores.codes.getCode(record.code);
    if (!existing) return null;
    if (existing.id === record.id) return record.code;
  }
  return null;
}

/** Code numbers `from`..`to` (exclusive). */
const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);

/** Makes codes `from`..`to` side by side: all of them, or ItemsFailed (the others were tried, and some may exist). */
async function placeSlice(deps: JobDeps, job: JobRecord, seed: Buffer, from: number, to: number, eventActive: boolean) {
  const settled = await Promise.allSettled(range(from, to).map((index) => placeCode(deps, job, seed, index, eventActive)));
  const failed = settled.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed.length > 0) throw new ItemsFailed(`${codesWord(failed.length)} could not be generated`, failed[0]!.reason);
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<{ code: string; eventActive: boolean }>).value);
}

export const codeGenerationJob: JobKind = {
  permission: 'codes:manage',

  describe: (job) => `${job.total.toLocaleString('en-US')} code${job.total === 1 ? '' : 's'}`,

  lanes: (job) => Math.min(GENERATION_LANES, steps(job.total)),

  async runStep(deps, job, laneIndex, lane, timeLeft) {
    const { from, to, last } = laneCodes(job, laneIndex, lane);
    const event = await deps.stores.events.getEvent(job.eventId);
    if (!event) throw new JobStopped('The event was deleted');
    const seed = seedOf(job);
    const placed: { code: string; eventActive: boolean }[] = [];
    const work = await workUntilShort({
      from,
      timeLeft,
      itemsPerSecond: CODES_PER_SECOND_PER_LANE,
      unit: async (index) => {
        const next = Math.min(to, index + WRITES_IN_FLIGHT);
        placed.push(...(await placeSlice(deps, job, seed, index, next, event.isActive)));
        return { items: next - index, next, end: next >= to };
      },
    });
    const latest = await deps.stores.events.getEvent(job.eventId);
    if (!latest) {
      // The deletion may have listed the event's codes before these existed.
      await deps.stores.codes.deleteCodes(placed.map((entry) => entry.code));
      throw new JobStopped('The event was deleted');
    }
    // An activation change that raced this step may have missed its codes' copy of the flag (as in generateCodes).
    if (placed.some((entry) => entry.eventActive !== latest.isActive)) {
      try {
        await setEventActive(deps, job.eventId, latest.isActive);
      } catch (error) {
        if (error instanceof NotFound) throw new JobStopped('The event was deleted');
        throw error;
      }
    }
    return { items: work.items, finished: work.end && last, cursor: work.end ? nextChunk(job, from) : String(work.position) };
  },

  async abandonStep(deps, job, laneIndex, lane) {
    const { from, to } = laneCodes(job, laneIndex, lane);
    const seed = seedOf(job);
    const codes: (string | null)[] = [];
    for (let index = from; index < to; index += WRITES_IN_FLIGHT) {
      codes.push(...(await Promise.all(range(index, Math.min(to, index + WRITES_IN_FLIGHT)).map((i) => codeAt(deps, job, seed, i)))));
    }
    await deps.stores.codes.deleteCodes(codes.filter((code): code is string => code !== null));
  },

  async settle(deps, job) {
    await deps.stores.events.countJobCodes({ eventId: job.eventId, jobId: job.id, done: job.done });
  },

  async finish(_deps, job) {
    return { count: job.total, label: paramsOf(job).label };
  },
};

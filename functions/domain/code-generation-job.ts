/**
 * Generating codes as a background job: up to a million codes for one event.
 *
 * Code number i of a job is derived from the job's secret and i (and, after a
 * collision with a code of another batch, a counter), so a step that runs
 * again, whole or after being cut off halfway, makes the very same codes: one
 * that exists already with this job's id is done, none is made twice or lost.
 */
import { derivedAccessCode, newCodeRecord } from './access-code';
import { AlreadyExists, JobStopped, NotFound } from './errors';
import { setEventActive } from './event-admin';
import type { JobDeps, JobKind } from './job-kind';
import type { JobRecord } from './job-store';
import { derivedId } from './random';
import type { CodeRecord } from './records';

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
/** Code writes in flight within a step. */
const WRITES_IN_FLIGHT = 25;
/** A step stops this long before the worker's timeout, and carries on in its next try. */
const TIME_MARGIN_MS = 5_000;
/** Derivations tried for one code; each further one follows a collision with a code made otherwise. */
const DERIVATIONS = 5;

interface GenerationParams {
  count: number;
  label: string;
}

const paramsOf = (job: Pick<JobRecord, 'params'>) => job.params as unknown as GenerationParams;
const steps = (total: number) => Math.ceil(total / CODES_PER_STEP);

/** The codes of a lane's step: steps are dealt to the lanes in turn (lane l does steps l, l + lanes, …). */
export function stepCodes(job: Pick<JobRecord, 'total' | 'lanes'>, lane: number, step: number): { from: number; to: number; last: boolean } {
  const lanes = job.lanes.length;
  const chunk = lane + step * lanes;
  const from = chunk * CODES_PER_STEP;
  return { from, to: Math.min(job.total, from + CODES_PER_STEP), last: chunk + lanes >= steps(job.total) };
}

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

async function inSlices<T>(from: number, to: number, run: (index: number) => Promise<T>, between?: (done: number) => Promise<void>): Promise<T[]> {
  const out: T[] = [];
  for (let i = from; i < to; i += WRITES_IN_FLIGHT) {
    const slice = Array.from({ length: Math.min(WRITES_IN_FLIGHT, to - i) }, (_, k) => i + k);
    out.push(...(await Promise.all(slice.map(run))));
    await between?.(i + slice.length - from);
  }
  return out;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export const codeGenerationJob: JobKind = {
  permission: 'codes:manage',

  describe: (job) => `${job.total.toLocaleString('en-US')} code${job.total === 1 ? '' : 's'}`,

  lanes: (job) => Math.min(GENERATION_LANES, steps(job.total)),

  async runStep(deps, job, laneIndex, lane, remainingMs) {
    const { from, to, last } = stepCodes(job, laneIndex, lane.step);
    const event = await deps.stores.events.getEvent(job.eventId);
    if (!event) throw new JobStopped('The event was deleted');
    const seed = seedOf(job);
    const started = Date.now();
    const placed = await inSlices(
      from,
      to,
      (index) => placeCode(deps, job, seed, index, event.isActive),
      async (done) => {
        if (remainingMs() < TIME_MARGIN_MS) throw new Error(`stopped after ${done} of ${to - from} codes to stay within the worker's time`);
        await sleep(started + (done / CODES_PER_SECOND_PER_LANE) * 1000 - Date.now());
      },
    );
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
    return { items: to - from, finished: last };
  },

  async abandonStep(deps, job, laneIndex, lane) {
    const { from, to } = stepCodes(job, laneIndex, lane.step);
    const seed = seedOf(job);
    const codes = await inSlices(from, to, (index) => codeAt(deps, job, seed, index));
    await deps.stores.codes.deleteCodes(codes.filter((code): code is string => code !== null));
  },

  async settle(deps, job) {
    await deps.stores.events.countJobCodes({ eventId: job.eventId, jobId: job.id, done: job.done });
  },

  async finish(_deps, job) {
    return { count: job.total, label: paramsOf(job).label };
  },
};

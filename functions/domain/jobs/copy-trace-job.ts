/**
 * The trace of a leaked copy as a background job (copy-trace.ts starts it): lanes walk the event's
 * codes as the other walks do (code-walk.ts), each code's sessions (audience/trace-candidates.ts) are
 * scored against the copy's bits with the event's mark key (the job's secret), and each lane keeps
 * only its best session and how many it scored. The verdict needs the count of every candidate (the
 * union bound), so it is given once every lane is done: `finish` names the best session of all, or
 * nobody, and records the trace in the audit log.
 */
import { maskCode, recordAudit } from '../audit';
import { eventSessionsPage, type TraceCandidate } from '../audience';
import { JobStopped } from '../errors';
import { bestSession, copyBlocks, sessionAgreements, verdict, type MarkBit } from '../watermark';
import { CODES_PER_SECOND_PER_LANE } from './code-generation-job';
import { CODES_PER_WALK_STEP, walkLanes } from './code-walk';
import type { JobKind } from './job-kind';
import { jobActor, type JobRecord, type LaneState } from './job-store';
import { workUntilShort } from './step-work';

/** A read bit of the copy at its moment; null where it could not be read (an erasure). */
export interface MomentBit {
  part: string;
  index: number;
  bit: MarkBit | null;
}

/**
 * The bits as the job keeps them: runs of consecutive moments of a part, `[part, first index, bits]`
 * with `0`, `1` or `-` (an erasure) per moment, a few kilobytes for an hour of copy.
 */
export type BitRuns = [string, number, string][];

export function bitRuns(bits: readonly MomentBit[]): BitRuns {
  const sorted = [...bits].sort((a, b) => (a.part === b.part ? a.index - b.index : a.part < b.part ? -1 : 1));
  const runs: BitRuns = [];
  for (const { part, index, bit } of sorted) {
    const last = runs.at(-1);
    const char = bit === null ? '-' : String(bit);
    if (last && last[0] === part && last[1] + last[2].length === index) last[2] += char;
    else runs.push([part, index, char]);
  }
  return runs;
}

export function momentBits(runs: BitRuns): MomentBit[] {
  return runs.flatMap(([part, first, text]) => [...text].map((char, offset) => ({ part, index: first + offset, bit: char === '-' ? null : (Number(char) as MarkBit) })));
}

/** What a trace works on, in the audit log's words. */
export const copyText = (moments: number) => `a copy's ${moments.toLocaleString('en-US')} segment${moments === 1 ? '' : 's'}`;

export interface CopyTraceParams {
  bits: BitRuns;
  /** Moments given, erasures included (the audit's count). */
  moments: number;
}

/** A trace's verdict, the job's result (docs/api.md, "Watermark trace"): the session named, or nulls and confidence 0. */
export type CopyTraceResult = {
  code: string | null;
  tokenId: string | null;
  label: string | null;
  sessionId: string | null;
  confidence: number;
  /** The bound on a wrong accusation at the best session's count. */
  odds: number;
  agreements: number;
  compared: number;
  threshold: number;
  /** Sessions scored. */
  candidates: number;
};

/** Codes a page reads (one BatchGet of 100 on the codes and the tickets per hundred of them). */
const CODES_PER_TRACE_PAGE = 500;

type Scored = TraceCandidate & { agreements: number };

interface TracePosition {
  /** The lane's next page of codes; null before its first. */
  page: string | null;
  /** Sessions the lane scored. */
  sessions: number;
  /** The lane's best-scoring session so far (the first of equals). */
  best: Scored | null;
}

const paramsOf = (job: Pick<JobRecord, 'params'>) => job.params as unknown as CopyTraceParams;
const positionOf = (lane: Pick<LaneState, 'cursor'>): TracePosition => (lane.cursor ? (JSON.parse(lane.cursor) as TracePosition) : { page: null, sessions: 0, best: null });

function markKeyFrom(job: JobRecord): Buffer {
  if (!job.secret) throw new Error(`job ${job.id} has no mark key left`);
  return Buffer.from(job.secret, 'base64url');
}

/** Every lane's count and best session together: the most agreements, the lower lane among equals. */
function scoredSoFar(job: Pick<JobRecord, 'lanes'>): { sessions: number; best: Scored | null } {
  const positions = job.lanes.map(positionOf);
  const best = positions.reduce<Scored | null>((top, { best: lane }) => (lane && lane.agreements > (top?.agreements ?? -1) ? lane : top), null);
  return { sessions: positions.reduce((sum, position) => sum + position.sessions, 0), best };
}

export const copyTraceJob: JobKind = {
  permission: 'codes:manage',

  describe: (job) => copyText(paramsOf(job).moments),

  lanes: (job) => walkLanes(job.total),

  async runStep(deps, job, laneIndex, lane, timeLeft) {
    if (!(await deps.stores.events.getEvent(job.eventId))) throw new JobStopped('The event was deleted');
    const markKey = markKeyFrom(job);
    const blocks = copyBlocks(momentBits(paramsOf(job).bits));
    const work = await workUntilShort<TracePosition>({
      from: positionOf(lane),
      timeLeft,
      itemsPerSecond: CODES_PER_SECOND_PER_LANE,
      maxItems: CODES_PER_WALK_STEP * 5,
      unit: async (position) => {
        const page = await eventSessionsPage(deps.stores, { eventId: job.eventId, cursor: position.page, limit: CODES_PER_TRACE_PAGE, part: { index: laneIndex, of: job.lanes.length } });
        const before = { sessionId: position.best?.sessionId ?? null, agreements: position.best?.agreements ?? -1 };
        const after = bestSession(page.sessions.map((candidate) => candidate.sessionId), (sessionId) => sessionAgreements(markKey, sessionId, blocks), before);
        const found = after.sessionId === before.sessionId ? undefined : page.sessions.find((candidate) => candidate.sessionId === after.sessionId);
        const best = found ? { ...found, agreements: after.agreements } : position.best;
        return { items: page.codes, next: { page: page.nextCursor, sessions: position.sessions + page.sessions.length, best }, end: page.nextCursor === null };
      },
    });
    return { items: work.items, finished: work.end, cursor: JSON.stringify(work.position) };
  },

  async finish(deps, job) {
    const { sessions, best } = scoredSoFar(job);
    const compared = momentBits(paramsOf(job).bits).filter(({ bit }) => bit !== null).length;
    const accusation = verdict({ sessionId: best?.sessionId ?? null, agreements: best?.agreements ?? -1 }, compared, sessions);
    const named = accusation.sessionId === null ? null : best;
    const result: CopyTraceResult = {
      code: named?.code ?? null,
      tokenId: named?.tokenId ?? null,
      label: named?.label ?? null,
      sessionId: named?.sessionId ?? null,
      confidence: accusation.confidence,
      odds: accusation.falseAccusationOdds,
      agreements: accusation.agreements,
      compared: accusation.compared,
      threshold: accusation.threshold,
      candidates: sessions,
    };
    // The code itself lets one watch: the entry names it masked (every reader's view), and by its token id.
    // Keyed by the job: a finish run again replaces the same entry.
    const { code, ...kept } = result;
    await recordAudit(
      deps,
      jobActor(job),
      { action: 'watermark.trace', eventId: job.eventId, target: code ? maskCode(code) : 'nobody named', details: { jobId: job.id, bits: paramsOf(job).moments, ...kept } },
      { id: `${job.id}trace`, at: deps.now().toISOString() },
    );
    return result;
  },
};

/**
 * Starting the trace of a leaked copy (docs/watermark-design.md, section 5): the tracer's read bits are
 * checked here and the accusation runs as a background job (copy-trace-job.ts), since it scores every
 * session the event ever had and a sold-out event has millions. The job carries the event's mark key as
 * its secret (dropped when it is done), so the worker needs no watermark secret of its own.
 */
import * as z from 'zod';
import { recordAudit, type Actor } from '../audit';
import { requireRecordingFiles, type WatermarkDeps } from '../audience';
import { InvalidInput } from '../errors';
import { requireEvent } from '../events';
import { parseInput } from '../inputs';
import { markKeyOf } from '../watermark';
import { bitRuns, copyText, type CopyTraceParams } from './copy-trace-job';
import type { JobRecord } from './job-store';
import { startJob, type JobStartDeps } from './jobs';

/** An hour of 1 s segments. */
export const MAX_TRACE_BITS = 3600;
/** The bits' runs as the job record keeps them (a copy's moments are mostly consecutive: a few hundred bytes). */
const MAX_RUNS_BYTES = 64 * 1024;

const partId = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'is not a part id');
const traceInput = z
  .object({
    bits: z
      .array(z.object({ part: partId, index: z.number().int().min(0).max(999_999_999), bit: z.union([z.literal(0), z.literal(1), z.null()]) }).strict())
      .min(1)
      .max(MAX_TRACE_BITS),
  })
  .strict();

/**
 * `POST …/trace`: starts, by `actor`, the job that scores every session of the event against the copy's
 * bits and names the best one only above the threshold that keeps a wrong accusation under one in a
 * million (watermark/accusation.ts). A moment given twice would count its evidence twice and void that
 * bound: refused. 503 without a media bucket (nothing marked to trace against).
 */
export async function startCopyTrace(
  deps: JobStartDeps & Pick<WatermarkDeps, 'recordingFiles'> & { config: { watermarkSecret: string } },
  actor: Actor,
  eventId: string,
  body: unknown,
): Promise<JobRecord> {
  const input = parseInput(traceInput, body);
  const moments = new Set(input.bits.map(({ part, index }) => `${part}.${index}`));
  if (moments.size !== input.bits.length) throw new InvalidInput('bits', 'must name each moment (part, index) once');
  const event = await requireEvent(deps, eventId);
  requireRecordingFiles(deps);
  const params: CopyTraceParams = { bits: bitRuns(input.bits), moments: input.bits.length };
  if (JSON.stringify(params.bits).length > MAX_RUNS_BYTES) throw new InvalidInput('bits', 'are scattered over too many separate stretches of moments');
  const job = await startJob(deps, {
    kind: 'trace-copy',
    eventId: event.id,
    total: event.tokenCount,
    params: { ...params },
    secret: Buffer.from(markKeyOf(deps.config.watermarkSecret, event.id)).toString('base64url'),
    actor,
  });
  // Not the bits themselves: the entry says what was traced, the trace's own entry (at its end) whom it named.
  await recordAudit(deps, actor, { action: 'job.start', eventId: event.id, eventTitle: event.title, target: copyText(params.moments), details: { jobId: job.id, kind: job.kind, bits: params.moments } });
  return job;
}

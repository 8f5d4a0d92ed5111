/**
 * The trace of a leaked copy's admin use cases (docs/watermark-design.md, section 5): the marked parts
 * of an event's recording, signed URLs of their A and B segments and fingerprints (the video stays on
 * the operator's machine; only the recording comes to it), and the accusation from the bits the tracer
 * read. The mark key never leaves the API. In the audience area: it names who watched, from the codes
 * and the tickets' records, above the watermark core.
 */
import * as z from 'zod';
import { countOf, maskCode, recordAudit, type Actor, type AuditStore } from '../audit';
import { InvalidInput, WatermarkingNotConfigured } from '../errors';
import { requireEvent, type EventStore } from '../events';
import { parseInput } from '../inputs';
import { accuse, markedSegmentFiles, markKeyOf, sessionMarks, watermarkFileKey, watermarkParts, type MarkBit, type RecordingFiles } from '../watermark';
import { everyEventSession, type CandidateStores } from './trace-candidates';

export interface WatermarkDeps {
  stores: CandidateStores & { events: EventStore; audit: AuditStore };
  config: { watermarkSecret: string };
  /** The media bucket; null where none is configured. */
  recordingFiles: RecordingFiles | null;
  now(): Date;
}

/** How long a signed URL of the recording works: enough to fetch a few hundred segments. */
export const WATERMARK_URL_SECONDS = 300;
export const MAX_WATERMARK_FILES = 600;
/** An hour of 1 s segments. */
export const MAX_TRACE_BITS = 3600;

function filesOf(deps: Pick<WatermarkDeps, 'recordingFiles'>): RecordingFiles {
  if (!deps.recordingFiles) throw new WatermarkingNotConfigured('watermarking is not configured');
  return deps.recordingFiles;
}

/** `GET …/watermark`: the event's marked parts (none when it never had one). */
export async function watermarkInfo(deps: WatermarkDeps, eventId: string) {
  const event = await requireEvent(deps, eventId);
  return { eventId: event.id, parts: watermarkParts(await filesOf(deps).parts(event.id)) };
}

const filesInput = z.object({ files: z.array(z.string().min(1).max(300)).min(1).max(MAX_WATERMARK_FILES) }).strict();

/** `POST …/watermark/files`: a signed GET URL (5 minutes) of each named A/B segment of a marked part, or fingerprint; 400 for any other name. */
export async function watermarkFileUrls(deps: WatermarkDeps, actor: Actor, eventId: string, body: unknown) {
  const input = parseInput(filesInput, body);
  const event = await requireEvent(deps, eventId);
  const files = filesOf(deps);
  const recorded = await files.parts(event.id);
  const parts = watermarkParts(recorded);
  const segmentFiles = markedSegmentFiles(recorded);
  const names = [...new Set(input.files)];
  const keys = names.map((name) => {
    const key = watermarkFileKey(event.id, parts, name, segmentFiles);
    if (!key) throw new InvalidInput(`files.${input.files.indexOf(name)}`, 'is not a watermarked segment (.a.ts, .b.ts) or fingerprint of this event');
    return [name, key] as const;
  });
  const urls = Object.fromEntries(await Promise.all(keys.map(async ([name, key]) => [name, await files.signedUrl(key, WATERMARK_URL_SECONDS)] as const)));
  await recordAudit(deps, actor, { action: 'watermark.files', eventId: event.id, eventTitle: event.title, target: countOf(names.length, 'file'), details: { files: names.length } });
  return { urls };
}

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
 * `POST …/trace`: scores every session the event ever had against the copy's bits and names the best
 * one only above the threshold that keeps a wrong accusation under one in a million (accusation.ts).
 * A moment given twice would count its evidence twice and void that bound: refused.
 */
export async function traceCopy(deps: WatermarkDeps, actor: Actor, eventId: string, body: unknown) {
  const input = parseInput(traceInput, body);
  const moments = new Set(input.bits.map(({ part, index }) => `${part}.${index}`));
  if (moments.size !== input.bits.length) throw new InvalidInput('bits', 'must name each moment (part, index) once');
  const event = await requireEvent(deps, eventId);
  // Without the media bucket there is nothing marked to trace against (and the CLI could not have read bits).
  filesOf(deps);
  const markKey = markKeyOf(deps.config.watermarkSecret, event.id);
  const candidates = [...new Map((await everyEventSession(deps.stores, event.id)).map((candidate) => [candidate.sessionId, candidate])).values()];
  // accuse scores one session at a time: keeping that session's blocks is enough.
  let current: { sessionId: string; bits: ReturnType<typeof sessionMarks> } | null = null;
  const bitOf = (sessionId: string, index: number): MarkBit => {
    if (current?.sessionId !== sessionId) current = { sessionId, bits: sessionMarks(markKey, sessionId) };
    return current.bits(input.bits[index]!);
  };
  const accusation = accuse({ copy: input.bits.map(({ bit }) => bit), sessions: candidates.map((candidate) => candidate.sessionId), bitOf });
  const named = accusation.sessionId === null ? null : candidates.find((candidate) => candidate.sessionId === accusation.sessionId)!;
  const result = {
    code: named?.code ?? null,
    tokenId: named?.tokenId ?? null,
    label: named?.label ?? null,
    sessionId: named?.sessionId ?? null,
    confidence: accusation.confidence,
    odds: accusation.falseAccusationOdds,
    agreements: accusation.agreements,
    compared: accusation.compared,
    threshold: accusation.threshold,
    candidates: candidates.length,
  };
  // The code itself lets one watch: the entry names it masked (every reader's view), and by its token id.
  const { code, ...kept } = result;
  await recordAudit(deps, actor, {
    action: 'watermark.trace',
    eventId: event.id,
    eventTitle: event.title,
    target: code ? maskCode(code) : 'nobody named',
    details: { bits: input.bits.length, ...kept },
  });
  return result;
}

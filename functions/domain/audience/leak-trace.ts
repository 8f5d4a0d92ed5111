/**
 * What the tracer of a leaked copy reads (docs/watermark-design.md, section 5): the marked parts of an
 * event's recording, and signed URLs of their A and B segments and fingerprints (the video stays on the
 * operator's machine; only the recording comes to it). The accusation from the bits it read is a
 * background job (jobs/copy-trace-job.ts): it scores every session the event had. The mark key never
 * leaves the platform.
 */
import * as z from 'zod';
import { countOf, recordAudit, type Actor, type AuditStore } from '../audit';
import { InvalidInput, WatermarkingNotConfigured } from '../errors';
import { requireEvent, type EventStore } from '../events';
import { parseInput } from '../inputs';
import { markedSegmentFiles, watermarkFileKey, watermarkParts, type RecordingFiles } from '../watermark';

export interface WatermarkDeps {
  stores: { events: EventStore; audit: AuditStore };
  /** The media bucket; null where none is configured. */
  recordingFiles: RecordingFiles | null;
  now(): Date;
}

/** How long a signed URL of the recording works: enough to fetch a few hundred segments. */
export const WATERMARK_URL_SECONDS = 300;
export const MAX_WATERMARK_FILES = 600;

/** The media bucket: 503 where none is configured (nothing marked to trace against). */
export function requireRecordingFiles(deps: Pick<WatermarkDeps, 'recordingFiles'>): RecordingFiles {
  if (!deps.recordingFiles) throw new WatermarkingNotConfigured('watermarking is not configured');
  return deps.recordingFiles;
}

/** `GET …/watermark`: the event's marked parts (none when it never had one). */
export async function watermarkInfo(deps: WatermarkDeps, eventId: string) {
  const event = await requireEvent(deps, eventId);
  return { eventId: event.id, parts: watermarkParts(await requireRecordingFiles(deps).parts(event.id)) };
}

const filesInput = z.object({ files: z.array(z.string().min(1).max(300)).min(1).max(MAX_WATERMARK_FILES) }).strict();

/** `POST …/watermark/files`: a signed GET URL (5 minutes) of each named A/B segment of a marked part, or fingerprint; 400 for any other name. */
export async function watermarkFileUrls(deps: WatermarkDeps, actor: Actor, eventId: string, body: unknown) {
  const input = parseInput(filesInput, body);
  const event = await requireEvent(deps, eventId);
  const files = requireRecordingFiles(deps);
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

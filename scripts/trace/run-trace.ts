/**
 * One trace of a copy (docs/watermark-design.md, sections 4 and 5): the event's marked parts, the copy
 * aligned on their fingerprints, A and B of the aligned segments fetched, one bit read per segment,
 * the bits handed to the API's trace job, which names the session (or nobody). Only the recording's small files
 * come to this machine; the copy never leaves it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { CopyTraceResult } from '../../functions/domain/jobs';
import { frameRange, meanOfFrames, readWindowFrames, type LumaFrame } from '../../functions/domain/watermark';
import { alignedSegments, alignWindows, FP_HEIGHT, FP_WIDTH, timelineOf, type AlignedSegment, type RecordedSegment } from './align';
import type { StaffApi } from './api-client';
import { grayFrames, probeVideo } from './media';
import { readCopyBits, type SegmentPictureSet } from './read-bits';
import { segmentStem } from '../../recording/part-record';
import { fetchFiles, inParallel, renditionFor, saveFiles, versionFile, type WatermarkPart } from './recording-files';
import { alignedLine, bitsLine, copyLine, verdictLines } from './report';
import { traceByJob } from './trace-job';

/** The copy's picture for the reader, and A's and B's (the reader samples both at its own working size). */
const COPY_SIZE = { width: 160, height: 90 };
const VERSION_SIZE = { width: 320, height: 180 };
/** The trace route takes an hour of bits. */
const MAX_BITS = 3600;

export interface TraceRun {
  file: string;
  eventId: string;
  api: StaffApi;
  /** Report lines, as they come. */
  say(line: string): void;
}

export const NOBODY: CopyTraceResult = { code: null, tokenId: null, label: null, sessionId: null, confidence: 0, odds: 1, agreements: 0, compared: 0, threshold: 0, candidates: 0 };

export async function runTrace(run: TraceRun): Promise<CopyTraceResult> {
  const event = encodeURIComponent(run.eventId);
  const video = await probeVideo(run.file);
  run.say(copyLine(basename(run.file), video));
  const { parts } = await run.api.get<{ parts: WatermarkPart[] }>(`/api/admin/events/${event}/watermark`);
  if (parts.length === 0) {
    run.say('the event has no watermarked part: nothing to trace against');
    return NOBODY;
  }
  const dir = await mkdtemp(join(tmpdir(), 'stagedoor-trace-'));
  try {
    const [copyPrint, copyFrames, timeline] = await Promise.all([
      grayFrames(run.file, FP_WIDTH, FP_HEIGHT),
      grayFrames(run.file, COPY_SIZE.width, COPY_SIZE.height),
      recordingTimeline(run.api, run.eventId, parts),
    ]);
    const aligned = alignedSegments(alignWindows(copyPrint, timeline), timeline).slice(0, MAX_BITS);
    if (aligned.length === 0) {
      run.say(alignedLine([], { scale: 1, left: 0, top: 0 }));
      return NOBODY;
    }
    const sets = await segmentPictures(run.api, run.eventId, parts, aligned, copyFrames, video.height, dir);
    const read = readCopyBits(sets);
    run.say(alignedLine(runsOf(parts, aligned), read.placement));
    const erased = read.bits.filter((bit) => bit.bit === null).length;
    run.say(bitsLine(read.bits.length - erased, erased));
    const answer = await traceByJob(run.api, run.eventId, read.bits.map(({ part, index, bit }) => ({ part, index, bit })), run.say);
    for (const line of verdictLines(answer)) run.say(line);
    return answer;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The marked parts' fingerprints, end to end in show order. */
async function recordingTimeline(api: StaffApi, eventId: string, parts: readonly WatermarkPart[]) {
  const names = parts.flatMap((part) => part.segments.map((segment) => `fingerprints/${segmentStem(part.part, segment.index)}.fp`));
  const prints = await fetchFiles(api, eventId, names);
  const segments: RecordedSegment[] = parts.flatMap((part) =>
    // A segment without its fingerprint takes no room in the timeline: the windows around it score lower, the rest aligns.
    part.segments.map((segment) => ({ part: part.part, index: segment.index, seconds: segment.seconds, fingerprint: prints.get(`fingerprints/${segmentStem(part.part, segment.index)}.fp`) ?? new Uint8Array() })),
  );
  return timelineOf(segments);
}

/** A's and B's mean pictures over the segment's read window (each file starts at the segment's start). */
async function versionMean(path: string, seconds: number): Promise<LumaFrame | null> {
  const frames = await grayFrames(path, VERSION_SIZE.width, VERSION_SIZE.height);
  return meanOfFrames(frames, VERSION_SIZE.width, VERSION_SIZE.height, frameRange(readWindowFrames(0, seconds)));
}

async function segmentPictures(
  api: StaffApi,
  eventId: string,
  parts: readonly WatermarkPart[],
  aligned: readonly AlignedSegment[],
  copyFrames: Buffer,
  copyHeight: number,
  dir: string,
): Promise<SegmentPictureSet[]> {
  const partOf = new Map(parts.map((part) => [part.part, part]));
  const wanted = aligned.map((segment) => {
    const rendition = renditionFor(partOf.get(segment.part)!, copyHeight);
    return { segment, a: versionFile(segment.part, segment.index, rendition, 'a'), b: versionFile(segment.part, segment.index, rendition, 'b') };
  });
  const saved = await saveFiles(api, eventId, wanted.flatMap((w) => [w.a, w.b]), dir);
  // ffmpeg per file, two at a time: the machine's other work goes on.
  const sets = await inParallel(
    wanted,
    async ({ segment, a, b }) => {
      const copy = meanOfFrames(copyFrames, COPY_SIZE.width, COPY_SIZE.height, segment.copyFrames);
      const [pathA, pathB] = [saved.get(a), saved.get(b)];
      if (!pathA || !pathB) return null;
      const [meanA, meanB] = [await versionMean(pathA, segment.seconds), await versionMean(pathB, segment.seconds)];
      return copy && meanA && meanB ? { part: segment.part, index: segment.index, signs: partOf.get(segment.part)!.signs, copy, a: meanA, b: meanB } : null;
    },
    2,
  );
  return sets.filter((set): set is SegmentPictureSet => set !== null);
}

/** Consecutive aligned segments of each part, with their show times (from the first part's start). */
function runsOf(parts: readonly WatermarkPart[], aligned: readonly AlignedSegment[]) {
  const showStart = Math.min(...parts.map((part) => Date.parse(part.startedAt)));
  const timeOf = (part: string, index: number) => {
    const found = parts.find((p) => p.part === part)!;
    const segment = found.segments.find((s) => s.index === index)!;
    return (Date.parse(found.startedAt) - showStart) / 1000 + segment.at;
  };
  const runs: { part: string; first: number; last: number; from: number; to: number }[] = [];
  for (const segment of [...aligned].sort((x, y) => timeOf(x.part, x.index) - timeOf(y.part, y.index))) {
    const last = runs.at(-1);
    if (last && last.part === segment.part && last.last + 1 === segment.index) {
      last.last = segment.index;
      last.to = timeOf(segment.part, segment.index) + segment.seconds;
    } else runs.push({ part: segment.part, first: segment.index, last: segment.index, from: timeOf(segment.part, segment.index), to: timeOf(segment.part, segment.index) + segment.seconds });
  }
  return runs;
}

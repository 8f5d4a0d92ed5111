/**
 * Where a copy lies in the show: its fingerprint (16×9 gray at 10 frames/s) against the recording's,
 * segment by segment, by normalised cross-correlation over 10 s windows of the copy, so a copy that
 * starts anywhere, skips or pauses still aligns piece by piece. NCC fits gain and offset, so a
 * restreamer's brightness or contrast change does not matter; a crop of a few percent barely moves a
 * 16×9 picture; the copy is sampled at the same 10 frames/s, so its frame rate does not matter either.
 */
import { readWindowFrames, SAMPLE_FPS } from '../../functions/domain/watermark';

export const FP_WIDTH = 16;
export const FP_HEIGHT = 9;
export const FP_SIZE = FP_WIDTH * FP_HEIGHT;
/** 10 s windows. */
export const WINDOW_FRAMES = 10 * SAMPLE_FPS;
/** A last, shorter window is aligned when it has at least 3 s. */
const MIN_WINDOW_FRAMES = 3 * SAMPLE_FPS;
/** Below this correlation a window is taken as not from the show (an overlay, another video). */
export const MIN_SCORE = 0.5;
/** Lags the coarse pass keeps for the fine one. */
const COARSE_CANDIDATES = 8;
/**
 * Scores this close to a window's best are a tie (content that repeats: a static shot, a loop): the
 * lag that continues the previous window's wins, so a continuous copy stays in one piece.
 */
const TIE = 0.002;

export interface RecordedSegment {
  part: string;
  index: number;
  seconds: number;
  /** Its fingerprint: FP_SIZE bytes per frame, from the segment's start. */
  fingerprint: Uint8Array;
}

export interface Timeline {
  frames: Uint8Array;
  count: number;
  segments: (Omit<RecordedSegment, 'fingerprint'> & { firstFrame: number; frameCount: number })[];
}

/** The recording's fingerprints end to end, in show order. */
export function timelineOf(segments: readonly RecordedSegment[]): Timeline {
  const count = segments.reduce((sum, segment) => sum + Math.floor(segment.fingerprint.length / FP_SIZE), 0);
  const frames = new Uint8Array(count * FP_SIZE);
  let at = 0;
  const placed = segments.map(({ fingerprint, ...segment }) => {
    const frameCount = Math.floor(fingerprint.length / FP_SIZE);
    frames.set(fingerprint.subarray(0, frameCount * FP_SIZE), at * FP_SIZE);
    const entry = { ...segment, firstFrame: at, frameCount };
    at += frameCount;
    return entry;
  });
  return { frames, count, segments: placed };
}

export interface WindowMatch {
  /** First copy frame of the window, and its length in frames. */
  copyStart: number;
  frames: number;
  /** The timeline frame the window's first frame matches. */
  timelineStart: number;
  score: number;
}

/** Normalised cross-correlation of two equally long runs of values. */
function ncc(a: Uint8Array | Float32Array, aFrom: number, b: Uint8Array | Float32Array, bFrom: number, length: number): number {
  let sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
  for (let i = 0; i < length; i++) {
    const x = a[aFrom + i]!;
    const y = b[bFrom + i]!;
    sa += x;
    sb += y;
    saa += x * x;
    sbb += y * y;
    sab += x * y;
  }
  const va = saa - (sa * sa) / length;
  const vb = sbb - (sb * sb) / length;
  return va > 1e-9 && vb > 1e-9 ? (sab - (sa * sb) / length) / Math.sqrt(va * vb) : 0;
}

/** 4×3 block means of each 16×9 frame: the coarse pass's picture, 12 values a frame. */
function coarse(frames: Uint8Array, count: number): Float32Array {
  const out = new Float32Array(count * 12);
  for (let f = 0; f < count; f++) {
    for (let y = 0; y < FP_HEIGHT; y++) {
      for (let x = 0; x < FP_WIDTH; x++) out[f * 12 + Math.floor(y / 3) * 4 + Math.floor(x / 4)]! += frames[f * FP_SIZE + y * FP_WIDTH + x]! / 12;
    }
  }
  return out;
}

/**
 * The best timeline position of each window of the copy: a coarse pass over every lag (4×3 blocks),
 * then the full 16×9 correlation around its best few lags, and the lag that continues the previous
 * window's among those that tie. Windows scoring under `minScore` are left out.
 */
export function alignWindows(copy: Uint8Array, timeline: Timeline, minScore = MIN_SCORE): WindowMatch[] {
  const copyCount = Math.floor(copy.length / FP_SIZE);
  const copyCoarse = coarse(copy, copyCount);
  const lineCoarse = coarse(timeline.frames, timeline.count);
  const matches: WindowMatch[] = [];
  for (let copyStart = 0; copyStart < copyCount; copyStart += WINDOW_FRAMES) {
    const frames = Math.min(WINDOW_FRAMES, copyCount - copyStart);
    if (frames < MIN_WINDOW_FRAMES || frames > timeline.count) continue;
    const scores: { lag: number; score: number }[] = [];
    for (let lag = 0; lag + frames <= timeline.count; lag++) scores.push({ lag, score: ncc(copyCoarse, copyStart * 12, lineCoarse, lag * 12, frames * 12) });
    scores.sort((a, b) => b.score - a.score);
    const previous = matches.at(-1);
    const expected = previous && previous.copyStart + previous.frames === copyStart ? previous.timelineStart + previous.frames : null;
    const lags = new Set(scores.slice(0, COARSE_CANDIDATES).flatMap(({ lag }) => [lag - 2, lag - 1, lag, lag + 1, lag + 2]));
    if (expected !== null) for (let near = expected - 2; near <= expected + 2; near++) lags.add(near);
    const fine = [...lags]
      .filter((lag) => lag >= 0 && lag + frames <= timeline.count)
      .map((lag) => ({ lag, score: ncc(copy, copyStart * FP_SIZE, timeline.frames, lag * FP_SIZE, frames * FP_SIZE) }))
      .sort((a, b) => b.score - a.score);
    const top = fine[0];
    if (!top) continue;
    const continuing = expected === null ? undefined : fine.find(({ lag, score }) => Math.abs(lag - expected) <= 2 && score >= top.score - TIE);
    const best = continuing ?? top;
    if (best.score >= minScore) matches.push({ copyStart, frames, timelineStart: best.lag, score: best.score });
  }
  return matches;
}

export interface AlignedSegment {
  part: string;
  index: number;
  seconds: number;
  /** The copy's frames (at 10 frames/s) that show the segment's read window. */
  copyFrames: number[];
}

/**
 * The recorded segments the copy shows, each with the copy's frames over its read window: a segment
 * counts when at least 70 % of that window is in one aligned window. A segment shown twice (a copy that
 * repeats) is taken once, where it is first seen.
 */
export function alignedSegments(matches: readonly WindowMatch[], timeline: Timeline): AlignedSegment[] {
  const found = new Map<string, AlignedSegment>();
  for (const match of matches) {
    for (const segment of timeline.segments) {
      const key = `${segment.part}.${segment.index}`;
      if (found.has(key)) continue;
      const { first, last } = readWindowFrames(0, segment.seconds);
      const wanted = last - first + 1;
      const copyFrames: number[] = [];
      for (let k = first; k <= last && k < segment.frameCount; k++) {
        const offset = segment.firstFrame + k - match.timelineStart;
        if (offset >= 0 && offset < match.frames) copyFrames.push(match.copyStart + offset);
      }
      if (wanted > 0 && copyFrames.length >= 0.7 * wanted) found.set(key, { part: segment.part, index: segment.index, seconds: segment.seconds, copyFrames });
    }
  }
  return [...found.values()];
}

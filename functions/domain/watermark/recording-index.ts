import type { PartRecord } from '../../../recording/part-record';
import { momentOf } from './mark-bit';

/** What the tracer reads of a part of the recording index: its run id, start, ladder and segments, and `watermark` when the ingest marked it. */
export type RecordedPart = Pick<PartRecord, 'publishId' | 'startedAt' | 'master' | 'renditions' | 'watermark'>;

/** The media bucket as the tracer uses it: the recording index, and signed GET URLs of its files. */
export interface RecordingFiles {
  /** The event's recorded parts, oldest first (unreadable ones left out). */
  parts(eventId: string): Promise<RecordedPart[]>;
  /** A GET URL of the bucket's `key`, valid for `seconds`. */
  signedUrl(key: string, seconds: number): Promise<string>;
}

export interface WatermarkPartView {
  part: string;
  startedAt: string;
  signs: string;
  renditions: { name: string; height: number | null }[];
  /** `at`: seconds from the part's start. */
  segments: { index: number; seconds: number; at: number }[];
}

/** The marked parts, each with its pattern's signs, its renditions (as the master orders them) and its segments' numbers and times. */
export function watermarkParts(parts: readonly RecordedPart[]): WatermarkPartView[] {
  return parts.flatMap((part) => (part.watermark ? [partView(part, part.watermark.signs)] : []));
}

function partView(part: RecordedPart, signs: string): WatermarkPartView {
  const names = Object.keys(part.renditions);
  const heights = masterHeights(part.master ?? '');
  const ordered = [...names].sort((a, b) => orderIn(heights, a) - orderIn(heights, b));
  // Every rendition of a moment has the same number and length: the first one's list times them all.
  let at = 0;
  const segments = (part.renditions[ordered[0] ?? ''] ?? []).flatMap(([file, seconds]) => {
    const moment = momentOf(file);
    if (!moment) return [];
    const segment = { index: moment.index, seconds, at: round(at) };
    at += seconds;
    return [segment];
  });
  return { part: part.publishId, startedAt: part.startedAt, signs, renditions: ordered.map((name) => ({ name, height: heights.get(name)?.height ?? null })), segments };
}

/**
 * Each rendition's place and height in the master playlist (`#EXT-X-STREAM-INF:…RESOLUTION=WxH` then
 * its URI; a live name such as `index_0-live1.m3u8` is its rendition `index_0.m3u8`).
 */
function masterHeights(master: string): Map<string, { order: number; height: number | null }> {
  const found = new Map<string, { order: number; height: number | null }>();
  const lines = master.split(/\r?\n/).map((line) => line.trim());
  lines.forEach((line, i) => {
    if (!line.startsWith('#EXT-X-STREAM-INF:')) return;
    const uri = lines.slice(i + 1).find((next) => next && !next.startsWith('#'));
    if (!uri) return;
    const resolution = /RESOLUTION=\d+x(\d+)/.exec(line);
    found.set(uri.replace(/-live\d+\.m3u8$/, '.m3u8'), { order: found.size, height: resolution ? Number(resolution[1]) : null });
  });
  return found;
}

const orderIn = (heights: Map<string, { order: number }>, name: string) => heights.get(name)?.order ?? heights.size;
const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** The storage key of a tracer's file name, or null when it is not a file of one of `parts` (A/B segments and fingerprints only). */
export function watermarkFileKey(eventId: string, parts: readonly WatermarkPartView[], name: string, segmentFiles: ReadonlySet<string>): string | null {
  const fingerprint = /^fingerprints\/([A-Za-z0-9_-]+)_([0-9]{1,9})\.fp$/.exec(name);
  if (fingerprint) {
    const part = parts.find((candidate) => candidate.part === fingerprint[1]);
    const index = Number(fingerprint[2]);
    return part && part.segments.some((segment) => segment.index === index) ? `recordings/${eventId}/${name}` : null;
  }
  const version = /^([A-Za-z0-9_-]+_[0-9]{1,9}(?:\.[0-9]+)?)\.[ab]\.ts$/.exec(name);
  return version && segmentFiles.has(`${version[1]}.w.ts`) ? `streams/${eventId}/${name}` : null;
}

/** The `.w.ts` files of the marked parts (every rendition's), as the index names them. */
export function markedSegmentFiles(parts: readonly RecordedPart[]): Set<string> {
  return new Set(parts.filter((part) => part.watermark).flatMap((part) => Object.values(part.renditions).flatMap((list) => list.map(([file]) => file))));
}

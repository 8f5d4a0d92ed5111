/**
 * The recording index's record of a part, and the moment's stem in its file names: plain data, no
 * imports, so the platform's domain (the watermark tracer) reads the same type the ingest writes.
 */

/**
 * One run of segments of an event (a publish, or the part of a publish after
 * the ingest began re-encoding it), as stored in
 * `recordings/<eventId>/<start ms>-<publishId>.json` (outside `streams/`, so
 * viewers never fetch it): the segments of each rendition (`index.m3u8`, or
 * `index_0.m3u8`… with a ladder) that are stored, in order, and the ladder's
 * master playlist.
 */
export interface PartRecord {
  version: 1;
  publishId: string;
  startedAt: string;
  /** The ingest's segment length when the part was written: the live playlists' target duration unless its segments need more. */
  segmentSeconds?: number;
  /** Seconds of the live playlists behind the live edge (the DVR window) while the part was written. */
  dvrWindowSeconds?: number;
  /** The ladder's master playlist text; absent in copy mode. */
  master?: string;
  /** Rendition playlist name → `[segment file, seconds]` in order (a watermarked part's: `<…>.w.ts`). */
  renditions: Record<string, [string, number][]>;
  /**
   * A watermarked part (every segment stored as `.a.ts` and `.b.ts`): the pattern's signs, row by
   * row, as the platform handed them (docs/watermark-design.md); the tracer reads the mark with them.
   */
  watermark?: { signs: string };
}

/** `<part>_<nnnnn>`: a moment's stem in every file name of a part (the ingest's `%05d`), fingerprint included. */
export const segmentStem = (part: string, index: number) => `${part}_${String(index).padStart(5, '0')}`;

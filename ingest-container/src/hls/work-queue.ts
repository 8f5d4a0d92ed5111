import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isMasterPlaylist, parseMediaPlaylist } from '../../../recording/media-playlist';
import { isPlaylist, playlistNameOf, storedFilesOf } from '../../../recording/playlist';
import type { StoredSegment } from '../../../recording/recording';

/**
 * The segments ffmpeg finished in its work folder and the store does not
 * hold yet, per rendition playlist, in ffmpeg's order. ffmpeg's own
 * playlists there name every segment it wrote (a segment appears by rename,
 * so a named one is complete); each is queued once. The local copies are
 * bounded by `bufferLimitBytes`: past it the oldest unstored segment is
 * deleted and handed to `dropped`.
 *
 * A watermarked part's work folder holds each rendition twice: the A
 * playlists (`index.m3u8`, `index_<v>.m3u8`) drive it, and a segment
 * `<…>.a.ts` is queued under the name playlists give it, `<…>.w.ts`, standing
 * for both versions (the B playlists, `*.b.m3u8`, are not read).
 */
export function createWorkQueue(deps: {
  workDir: string;
  bufferLimitBytes: number;
  /** ffmpeg wrote a master playlist (a ladder); called with its text each time one is read. */
  masterFound: (text: string) => void;
  dropped: (segment: StoredSegment) => void;
}) {
  const { workDir, bufferLimitBytes } = deps;
  /** Rendition playlist → the segment names queued from it so far (stored or not). */
  const seen = new Map<string, Set<string>>();
  const queued = new Map<string, StoredSegment[]>();
  let queuedBytes = 0;

  /** Reads ffmpeg's playlists and queues the segments not seen before; then keeps to the bound. */
  async function discover(): Promise<void> {
    for (const name of (await readdir(workDir)).filter((file) => isPlaylist(file) && !file.endsWith('.b.m3u8'))) {
      const text = await readFile(join(workDir, name), 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      if (isMasterPlaylist(text)) {
        deps.masterFound(text);
        continue;
      }
      const known = seen.get(name) ?? new Set<string>();
      seen.set(name, known);
      const queue = queued.get(name) ?? [];
      queued.set(name, queue);
      for (const segment of parseMediaPlaylist(text)) {
        if (known.has(segment.uri)) continue;
        known.add(segment.uri);
        // One version's size: what a viewer gets (the bit rate the playlists announce).
        const bytes = (await stat(join(workDir, segment.uri)).catch(() => undefined))?.size ?? 0;
        const queuedSegment = { ...segment, uri: playlistNameOf(segment.uri), bytes };
        queue.push(queuedSegment);
        queuedBytes += localBytes(queuedSegment);
      }
    }
    while (queuedBytes > bufferLimitBytes) dropOldest();
  }

  /** Bytes a queued segment holds on local disk: both versions of a watermarked one. */
  const localBytes = (segment: StoredSegment) => segment.bytes * storedFilesOf(segment.uri).length;

  /** In copy mode every segment is the recording's: there is no live-only data to drop first, so the oldest goes. */
  function dropOldest(): void {
    const queue = [...queued.values()].reduce((longest, next) => (next.length > longest.length ? next : longest));
    const segment = queue.shift()!;
    queuedBytes -= localBytes(segment);
    for (const file of storedFilesOf(segment.uri)) void unlink(join(workDir, file)).catch(() => undefined);
    deps.dropped(segment);
  }

  /**
   * Stores each rendition's queue head first, so a rendition's segments reach
   * the store in order and a failure leaves the rest queued. `store` answers
   * false for a segment that is gone (left out, not retried). What a rendition
   * got stored goes to `stored`, also when a later segment failed.
   */
  async function storeInOrder(store: (uri: string, rendition: string) => Promise<boolean>, stored: (rendition: string, segments: StoredSegment[]) => void): Promise<void> {
    for (const [rendition, queue] of queued) {
      const done: StoredSegment[] = [];
      try {
        while (queue.length > 0) {
          const next = queue[0]!;
          if (await store(next.uri, rendition)) done.push(next);
          queue.shift();
          queuedBytes -= localBytes(next);
        }
      } finally {
        if (done.length > 0) stored(rendition, done);
      }
    }
  }

  return {
    discover,
    storeInOrder,
    /** Segments queued and not stored yet. */
    waiting: () => [...queued.values()].reduce((sum, queue) => sum + queue.length, 0),
  };
}

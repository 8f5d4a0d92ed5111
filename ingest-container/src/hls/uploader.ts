import { watch, type FSWatcher } from 'node:fs';
import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError, type Logger } from '../log';
import type { IngestMetrics } from '../metrics';
import { isMasterPlaylist, parseMediaPlaylist, type Segment } from '../../../recording/media-playlist';
import { isPlaylist, referencedFiles } from '../../../recording/playlist';
import { putPlaylistText, streamPrefix, type Recording, type StoredSegment } from '../../../recording/recording';
import { SEGMENT_CACHE_CONTROL, SEGMENT_CONTENT_TYPE, type HlsStore } from '../../../recording/store';

export interface UploaderOptions {
  /** Where ffmpeg writes (its files appear by rename, see `temp_file`). */
  workDir: string;
  recording: Recording;
  store: HlsStore;
  /** Bytes of unstored segments kept on local disk while storage fails; past it the oldest are dropped. */
  bufferLimitBytes: number;
  log: Logger;
  metrics: Pick<IngestMetrics, 'count'>;
}

/** Default bound of the local buffer: with 2 GiB of a Fargate task's 20 GiB, about 45 minutes of a 6 Mbit/s stream. */
export const DEFAULT_BUFFER_LIMIT_BYTES = 2 * 1024 ** 3;

const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 5_000;
/** After the input ended, how long a failing store is retried before what is left is given up (and logged). */
const FINISH_RETRY_MS = 60_000;

/**
 * Copies the HLS output of one ffmpeg process to the store and keeps the
 * event's playlists. ffmpeg's own playlists (in the work folder, every
 * segment it wrote) only tell which segments are complete; each new one is
 * queued once, stored in order, added to the recording's current part, and
 * only then named by the live playlists (recording.ts). A failed upload is
 * retried with backoff while its segment waits on local disk; a segment's
 * local copy is deleted once stored.
 */
export function startUploader({ workDir, recording, store, bufferLimitBytes, log, metrics }: UploaderOptions) {
  const prefix = streamPrefix(recording.streamName);
  const seen = new Map<string, Set<string>>();
  const queued = new Map<string, StoredSegment[]>();
  let queuedBytes = 0;
  /** Stored segments (or a ladder master) that the index and the live playlists do not name yet (kept across failed passes). */
  let unnamed = false;
  let masterSeen = false;
  /** Whether this process still writes the show's playlists (not once another publish has taken it over). */
  let writesPlaylists = () => true;
  let running: Promise<void> | undefined;
  let again = false;
  let giveUpAt = Number.POSITIVE_INFINITY;

  async function discover(): Promise<void> {
    for (const name of (await readdir(workDir)).filter(isPlaylist)) {
      const text = await readFile(join(workDir, name), 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      if (isMasterPlaylist(text)) {
        if (!masterSeen) {
          recording.setMaster(text);
          masterSeen = unnamed = true;
        }
        continue;
      }
      const known = seen.get(name) ?? new Set<string>();
      seen.set(name, known);
      const queue = queued.get(name) ?? [];
      queued.set(name, queue);
      for (const segment of parseMediaPlaylist(text)) {
        if (known.has(segment.uri)) continue;
        known.add(segment.uri);
        const bytes = (await stat(join(workDir, segment.uri)).catch(() => undefined))?.size ?? 0;
        queue.push({ ...segment, bytes });
        queuedBytes += bytes;
      }
    }
    while (queuedBytes > bufferLimitBytes) dropOldest();
  }

  /**
   * Past the bound, the oldest unstored segment goes (in copy mode every
   * segment is the recording's: there is no live-only data to drop first).
   * Never silent: an error log and the CloudWatch metric RecordingSegmentsDropped (metrics.ts).
   */
  function dropOldest(): void {
    const queue = [...queued.values()].reduce((longest, next) => (next.length > longest.length ? next : longest));
    const segment = queue.shift()!;
    queuedBytes -= segment.bytes;
    void unlink(join(workDir, segment.uri)).catch(() => undefined);
    log.error('hls buffer full while storage fails, oldest unstored segment dropped from the recording', {
      stream_name: recording.streamName,
      segment: segment.uri,
      buffer_limit_bytes: bufferLimitBytes,
    });
    metrics.count('RecordingSegmentsDropped');
  }

  async function storeSegment(uri: string): Promise<boolean> {
    const path = join(workDir, uri);
    const body = await readFile(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (!body) {
      log.error('hls segment missing from the work folder, left out', { stream_name: recording.streamName, segment: uri });
      return false;
    }
    await store.put(prefix + uri, { body, contentType: SEGMENT_CONTENT_TYPE, cacheControl: SEGMENT_CACHE_CONTROL });
    metrics.count('SegmentsUploaded');
    await unlink(path).catch(() => undefined);
    return true;
  }

  async function pass(): Promise<void> {
    await discover();
    for (const [rendition, queue] of queued) {
      const stored: StoredSegment[] = [];
      try {
        while (queue.length > 0) {
          const next = queue[0]!;
          if (await storeSegment(next.uri)) stored.push(next);
          queue.shift();
          queuedBytes -= next.bytes;
        }
      } finally {
        if (stored.length > 0) {
          recording.add(rendition, stored);
          unnamed = true;
        }
      }
    }
    if (!unnamed) return;
    await recording.save();
    if (writesPlaylists()) await recording.putLivePlaylists();
    unnamed = false;
  }

  function sync(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let delay = RETRY_FIRST_MS;
      do {
        again = false;
        try {
          await pass();
          delay = RETRY_FIRST_MS;
        } catch (error) {
          const waiting = [...queued.values()].reduce((sum, queue) => sum + queue.length, 0);
          log.error('hls upload failed, retrying', { stream_name: recording.streamName, waiting_segments: waiting, retry_in_ms: delay, error: describeError(error) });
          metrics.count('UploadRetries');
          if (Date.now() + delay > giveUpAt) return;
          await new Promise((resolve) => setTimeout(resolve, delay));
          delay = Math.min(delay * 2, RETRY_MAX_MS);
          again = true;
        }
      } while (again);
    })().finally(() => (running = undefined));
    return running;
  }

  const watcher: FSWatcher = watch(workDir, (_event, filename) => {
    if (filename && isPlaylist(filename)) void sync();
  });
  // ffmpeg may have written before the uploader started (a run waiting for the one before it to finish).
  void sync();

  return {
    /**
     * Stops watching and stores what is left (the last segments ffmpeg wrote
     * on exit); the live playlists only while `ownsShow` says this process
     * still writes them. Resolves with the number of segments that could not be stored.
     */
    async finish(ownsShow: () => boolean = () => true): Promise<number> {
      writesPlaylists = ownsShow;
      watcher.close();
      await running;
      giveUpAt = Date.now() + FINISH_RETRY_MS;
      await sync();
      const lost = [...queued.values()].reduce((sum, queue) => sum + queue.length, 0);
      if (lost > 0) log.error('hls segments not stored, storage kept failing', { stream_name: recording.streamName, segments: lost });
      return lost;
    },
  };
}

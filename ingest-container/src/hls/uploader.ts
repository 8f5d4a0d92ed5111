import { watch, type FSWatcher } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError, type Logger } from '../log';
import type { IngestMetrics } from '../metrics';
import { createRetryingPass } from './retrying-pass';
import { createWorkQueue } from './work-queue';
import { isPlaylist } from '../../../recording/playlist';
import { streamPrefix, type Recording } from '../../../recording/recording';
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

/** After the input ended, how long a failing store is retried before what is left is given up (and logged). */
const FINISH_RETRY_MS = 60_000;

/**
 * Copies the HLS output of one ffmpeg process to the store and keeps the
 * event's playlists. Each segment ffmpeg completes is queued once
 * (work-queue.ts), stored in order, added to the recording's current part,
 * and only then named by the live playlists (recording.ts). A failed upload is
 * retried with backoff (retrying-pass.ts) while its segment waits on local
 * disk; a segment's local copy is deleted once stored.
 */
export function startUploader({ workDir, recording, store, bufferLimitBytes, log, metrics }: UploaderOptions) {
  const prefix = streamPrefix(recording.streamName);
  /** Stored segments (or a ladder master) that the index and the live playlists do not name yet (kept across failed passes). */
  let unnamed = false;
  let masterSeen = false;
  /** Whether this process still writes the show's playlists (not once another publish has taken it over). */
  let writesPlaylists = () => true;

  const queue = createWorkQueue({
    workDir,
    bufferLimitBytes,
    masterFound(text) {
      if (masterSeen) return;
      recording.setMaster(text);
      masterSeen = unnamed = true;
    },
    // Never silent: an error log and the CloudWatch metric RecordingSegmentsDropped (metrics.ts).
    dropped(segment) {
      log.error('hls buffer full while storage fails, oldest unstored segment dropped from the recording', {
        stream_name: recording.streamName,
        segment: segment.uri,
        buffer_limit_bytes: bufferLimitBytes,
      });
      metrics.count('RecordingSegmentsDropped');
    },
  });

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

  /** Stores what is new, then names it: the recording's index first, the live playlists after. */
  async function pass(): Promise<void> {
    await queue.discover();
    await queue.storeInOrder(storeSegment, (rendition, stored) => {
      recording.add(rendition, stored);
      unnamed = true;
    });
    if (!unnamed) return;
    await recording.save();
    if (writesPlaylists()) await recording.putLivePlaylists();
    unnamed = false;
  }

  const passes = createRetryingPass({
    pass,
    failed(error, retryInMs) {
      log.error('hls upload failed, retrying', { stream_name: recording.streamName, waiting_segments: queue.waiting(), retry_in_ms: retryInMs, error: describeError(error) });
      metrics.count('UploadRetries');
    },
  });
  const watcher: FSWatcher = watch(workDir, (_event, filename) => {
    if (filename && isPlaylist(filename)) void passes.run();
  });
  // ffmpeg may have written before the uploader started (a run waiting for the one before it to finish).
  void passes.run();

  return {
    /**
     * Stops watching and stores what is left (the last segments ffmpeg wrote
     * on exit); the live playlists only while `ownsShow` says this process
     * still writes them. Resolves with the number of segments that could not be stored.
     */
    async finish(ownsShow: () => boolean = () => true): Promise<number> {
      writesPlaylists = ownsShow;
      watcher.close();
      await passes.idle();
      passes.giveUpAt(Date.now() + FINISH_RETRY_MS);
      await passes.run();
      const lost = queue.waiting();
      if (lost > 0) log.error('hls segments not stored, storage kept failing', { stream_name: recording.streamName, segments: lost });
      return lost;
    },
  };
}

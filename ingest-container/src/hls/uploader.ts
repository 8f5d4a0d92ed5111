import { watch, type FSWatcher } from 'node:fs';
import { describeError, type Logger } from '../log';
import type { IngestMetrics } from '../metrics';
import { createRetryingPass } from './retrying-pass';
import { createWorkQueue } from './work-queue';
import { isPlaylist } from '../../../recording/playlist';
import { createSegmentStorer } from './segment-storer';
import type { Recording } from '../../../recording/recording';
import type { HlsStore } from '../../../recording/store';

export interface UploaderOptions {
  /** Where ffmpeg writes (its files appear by rename, see `temp_file`). */
  workDir: string;
  recording: Recording;
  store: HlsStore;
  /** Bytes of unstored segments kept on local disk while storage fails; past it the oldest are dropped. */
  bufferLimitBytes: number;
  log: Logger;
  metrics: Pick<IngestMetrics, 'count'>;
  /** A watermarked part: the rendition playlist (its lowest) whose segments get a fingerprint, made with this ffmpeg. */
  fingerprints?: { rendition: string; ffmpegPath: string };
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
 * disk; a segment's local copy is deleted once stored. A watermarked
 * segment (`<…>.w.ts` in the index) is stored as both its versions, and the
 * lowest rendition's gets a fingerprint beside the index (fingerprint.ts).
 */
export function startUploader({ workDir, recording, store, bufferLimitBytes, log, metrics, fingerprints }: UploaderOptions) {
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

  const storeSegment = createSegmentStorer({ workDir, streamName: recording.streamName, store, log, metrics, fingerprints });

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

import { watch, type FSWatcher } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError, type Logger } from '../log';
import type { IngestMetrics } from '../metrics';
import { createRetryingPass } from './retrying-pass';
import { createWorkQueue } from './work-queue';
import { isPlaylist, storedFilesOf } from '../../../recording/playlist';
import { fingerprintKey, fingerprintOf } from './fingerprint';
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
  /** A watermarked part: the rendition playlist (its lowest) whose segments get a fingerprint, made with this ffmpeg. */
  fingerprints?: { rendition: string; ffmpegPath: string };
}

/** Default bound of the local buffer: with 2 GiB of a Fargate task's 20 GiB, about 45 minutes of a 6 Mbit/s stream. */
export const DEFAULT_BUFFER_LIMIT_BYTES = 2 * 1024 ** 3;

/** How long version B of a watermarked segment may lag behind A (the same ffmpeg writes both, a moment apart). */
const VERSION_B_WAIT_MS = 10_000;

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

  /** A segment file of the work folder; undefined when it is not there (after waiting `waitMs` for it to appear). */
  async function readSegment(file: string, waitMs: number): Promise<Buffer | undefined> {
    for (const giveUpAt = Date.now() + waitMs; ; await new Promise((resolve) => setTimeout(resolve, 50))) {
      const body = await readFile(join(workDir, file)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (body || Date.now() >= giveUpAt) return body;
    }
  }

  async function storeSegment(uri: string, rendition: string): Promise<boolean> {
    const files = storedFilesOf(uri);
    const bodies: Buffer[] = [];
    for (const [i, file] of files.entries()) {
      // A playlist named version A: version B is finished a moment later, if not yet.
      const body = await readSegment(file, i === 0 ? 0 : VERSION_B_WAIT_MS);
      if (!body) {
        log.error('hls segment missing from the work folder, left out', { stream_name: recording.streamName, segment: file });
        for (const other of files) await unlink(join(workDir, other)).catch(() => undefined);
        return false;
      }
      bodies.push(body);
    }
    for (const [i, file] of files.entries()) {
      await store.put(prefix + file, { body: bodies[i]!, contentType: SEGMENT_CONTENT_TYPE, cacheControl: SEGMENT_CACHE_CONTROL });
    }
    metrics.count('SegmentsUploaded');
    if (fingerprints && files.length === 2 && rendition === fingerprints.rendition) await storeFingerprint(files[0]!);
    for (const file of files) await unlink(join(workDir, file)).catch(() => undefined);
    return true;
  }

  /** The fingerprint of version A, made from its local copy; one that ffmpeg cannot make is logged and left out. */
  async function storeFingerprint(versionA: string): Promise<void> {
    const key = fingerprintKey(recording.streamName, versionA)!;
    let body: Buffer;
    try {
      body = await fingerprintOf(fingerprints!.ffmpegPath, join(workDir, versionA));
    } catch (error) {
      log.error('watermark fingerprint not made, left out', { stream_name: recording.streamName, segment: versionA, error: describeError(error) });
      return;
    }
    await store.put(key, { body, contentType: 'application/octet-stream', cacheControl: SEGMENT_CACHE_CONTROL });
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

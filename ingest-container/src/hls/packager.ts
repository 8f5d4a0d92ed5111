import type BroadcastServer from 'node-media-server/src/server/broadcast_server.js';
import type { Logger } from '../log';
import type { IngestMetrics } from '../metrics';
import type { PackagingOptions } from './ffmpeg-args';
import { describeError } from '../log';
import { DEFAULT_DVR_WINDOW_SECONDS, Recording, type LiveSettings } from '../../../recording/recording';
import type { HlsStore } from '../../../recording/store';
import { DEFAULT_BUFFER_LIMIT_BYTES } from './uploader';
import { createRunChain } from './run-chain';
import { packagePart, type PartPackaging } from './part-packaging';
import { SequenceHeaderWatch } from '../video/sequence-header-watch';
import { FlvTap } from '../rtmp/flv-tap';
import type { Verdict } from '../video/keyframe-judge';
import type { MarkPattern } from '../../../recording/watermark-pattern';

export interface HlsConfig extends PackagingOptions {
  store: HlsStore;
  ffmpegPath: string;
  /** Seconds of the live playlist behind the live edge (the DVR window). Default 120. */
  dvrWindowSeconds?: number;
  /** Bound of the local buffer of unstored segments while storage fails. Default 2 GiB. */
  bufferLimitBytes?: number;
}

const FINAL_PLAYLIST_RETRY_MS = 60_000;

export interface HlsJob {
  /**
   * Ends the input, lets ffmpeg write its last segment, stores what is left,
   * then the whole show's playlists as VOD (`#EXT-X-ENDLIST`), unless `final`
   * (asked once the uploads are done) says another publish has the show now.
   */
  stop(options?: { final?: () => boolean }): Promise<void>;
  /**
   * Packages another broadcast from here (the backup encoder taking over, or the primary back): the
   * current part ends where the old input stops, and a new part (a discontinuity, media sequence kept)
   * starts from the new broadcast's latest keyframe, which node-media-server's GOP cache replays to a new
   * subscriber at once. `verdict`: copy or re-encode, if already measured on that encoder (no wait).
   */
  switchTo(next: BroadcastServer, options?: { verdict?: Verdict }): void;
}

/**
 * Packages one publish: ffmpeg fed in-process from the broadcast, segments
 * stored under `streams/<streamName>/` as they appear and appended to the
 * event's recording (see recording.ts), which the live playlists are made from.
 *
 * A publish is packaged in parts (part-packaging.ts: each copies or
 * re-encodes as its own keyframes say). A new part starts where the
 * publisher's codec settings change (sequence-header-watch.ts: a reconnect
 * with another preset or frame size, or a new sequence header mid-stream):
 * the current ffmpeg run ends, and a new one starts at the next keyframe with
 * the new sequence headers, after a discontinuity in every playlist. Frames
 * of the new settings never reach the run of the old ones.
 */
export async function startHlsJob(args: {
  broadcast: BroadcastServer;
  streamName: string;
  publishId: string;
  config: HlsConfig;
  log: Logger;
  metrics: Pick<IngestMetrics, 'count'>;
  /** A packaging run began: the publish's video is re-encoded (or transcoded into a ladder) from now on, or copied. */
  onPackaging?: (reencoding: boolean) => void;
  /** Copy or re-encode, if already measured on this encoder (a standby going on air). */
  verdict?: Verdict;
  /** The publish is watermarked (the publish check's answer): every part of this job is packaged as A and B. */
  watermark?: MarkPattern;
}): Promise<HlsJob> {
  const { streamName, publishId, config, log, metrics, onPackaging } = args;
  let broadcast = args.broadcast;
  const live: LiveSettings = { segmentSeconds: config.segmentSeconds, dvrWindowSeconds: config.dvrWindowSeconds ?? DEFAULT_DVR_WINDOW_SECONDS };
  const recording = await Recording.open(config.store, streamName, log, { id: publishId, ...live });
  await recording.putLivePlaylists();
  const runs = createRunChain({
    publishId,
    streamName,
    recording,
    live,
    config: { ...config, bufferLimitBytes: config.bufferLimitBytes ?? DEFAULT_BUFFER_LIMIT_BYTES },
    log,
    metrics,
    onPackaging,
  });
  let headers = new SequenceHeaderWatch();
  const preamble = () => [broadcast.flvHeader, broadcast.flvMetaData, ...headers.headers()].filter((b): b is Buffer => b !== null);
  const partFrom = (id: string, first: Buffer[], verdict?: Verdict) =>
    packagePart({
      id,
      runs,
      options: config,
      preamble,
      declaredVideoKbps: () => broadcast.publisher?.videoDatarate,
      declaredSize: () => (broadcast.publisher?.videoWidth && broadcast.publisher.videoHeight ? { width: broadcast.publisher.videoWidth, height: broadcast.publisher.videoHeight } : undefined),
      first,
      verdict,
      watermark: args.watermark,
    });
  let part: PartPackaging = partFrom(publishId, [], args.verdict);
  let parts = 1;

  const onTag = (buffer: Buffer) => {
    const cut = headers.tag(buffer);
    if (cut === 'drop') return;
    if (cut === 'new-part') {
      void part.end();
      parts += 1;
      part = partFrom(`${publishId}-part${parts}`, preamble());
      log.info('hls new part: the publisher\'s codec settings changed', { stream_name: streamName, publish_id: publishId, part: parts });
    }
    part.tag(buffer);
  };
  // A failure here (no work folder) must not reach node-media-server's broadcast loop: this publish goes unpackaged.
  let failed = false;
  const tapOf = (source: BroadcastServer) =>
    new FlvTap(source.streamPath, (buffer) => {
      if (failed) return;
      try {
        onTag(buffer);
      } catch (error) {
        failed = true;
        part.abandon();
        log.error('hls packaging failed, the publish is not packaged', { stream_name: streamName, publish_id: publishId, error: describeError(error) });
      }
    });
  let pipe = tapOf(broadcast);
  broadcast.postPlay(pipe);
  log.info('hls packaging started', { stream_name: streamName, publish_id: publishId, store: config.store.location });

  let stopping: Promise<void> | undefined;
  return {
    stop({ final = () => true } = {}) {
      stopping ??= (async () => {
        broadcast.donePlay(pipe);
        await part.end(final);
        if (final()) await putFinalPlaylists(recording, log);
        log.info('hls packaging ended', { stream_name: streamName, publish_id: publishId });
      })();
      return stopping;
    },
    switchTo(next, { verdict } = {}) {
      if (stopping || next === broadcast) return;
      broadcast.donePlay(pipe);
      void part.end();
      // The other encoder's codec settings are its own: the new part starts with its headers, not the old ones.
      headers = new SequenceHeaderWatch();
      broadcast = next;
      parts += 1;
      part = partFrom(`${publishId}-part${parts}`, [], verdict);
      pipe = tapOf(next);
      log.info('hls new part: another encoder on air', { stream_name: streamName, publish_id: publishId, part: parts, stream_path: next.streamPath });
      next.postPlay(pipe);
    },
  };
}

/**
 * The event's playlists back to live before a publish is admitted: the lease
 * makes the status `live` at once, and a player told so must not get the last
 * part's VOD playlist. The job does it again when it starts; a failure here
 * is only logged.
 */
export async function reopenForLive(config: HlsConfig, streamName: string, log: Logger): Promise<void> {
  try {
    // The publish's part as it will start (not stored before it has segments): the live playlists at its target duration.
    const recording = await Recording.open(config.store, streamName, log, {
      id: 'admitted',
      segmentSeconds: config.segmentSeconds,
      dvrWindowSeconds: config.dvrWindowSeconds ?? DEFAULT_DVR_WINDOW_SECONDS,
    });
    await recording.putLivePlaylists();
  } catch (error) {
    log.warn('playlists not reopened before the publish', { stream_name: streamName, error: describeError(error) });
  }
}

/** The recording's VOD playlists, retried like segments are while storage fails. */
async function putFinalPlaylists(recording: Recording, log: Logger): Promise<void> {
  const giveUpAt = Date.now() + FINAL_PLAYLIST_RETRY_MS;
  for (let delay = 500; ; delay = Math.min(delay * 2, 5_000)) {
    try {
      return await recording.putFinalPlaylists();
    } catch (error) {
      log.error('final playlist upload failed', { stream_name: recording.streamName, error: describeError(error) });
      if (Date.now() + delay > giveUpAt) return;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

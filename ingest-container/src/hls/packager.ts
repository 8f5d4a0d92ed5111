import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BroadcastServer from 'node-media-server/src/server/broadcast_server.js';
import type { Logger } from '../log';
import type { IngestMetrics } from '../metrics';
import { ffmpegArgs, type Packaging, type PackagingOptions } from './ffmpeg-args';
import { describeError } from '../log';
import { DEFAULT_DVR_WINDOW_SECONDS, Recording, type LiveSettings } from '../../../recording/recording';
import type { HlsStore } from '../../../recording/store';
import { DEFAULT_BUFFER_LIMIT_BYTES, startUploader } from './uploader';
import { KeyframeJudge } from '../video/keyframe-judge';
import { flvTagTime, flvVideoFrame } from '../video/keyframe-meter';
import { FlvTap } from '../rtmp/flv-tap';

export interface HlsConfig extends PackagingOptions {
  store: HlsStore;
  ffmpegPath: string;
  /** Seconds of the live playlist behind the live edge (the DVR window). Default 120. */
  dvrWindowSeconds?: number;
  /** Bound of the local buffer of unstored segments while storage fails. Default 2 GiB. */
  bufferLimitBytes?: number;
}

const FINAL_PLAYLIST_RETRY_MS = 60_000;
/** How long ffmpeg gets to write its final segment and playlist after its input ends. */
const FFMPEG_EXIT_TIMEOUT_MS = 15_000;
/** Re-encoding bit rate when the publisher declares none and there is nothing to measure it on. */
const FALLBACK_VIDEO_KBPS = 2_500;

export interface HlsJob {
  /**
   * Ends the input, lets ffmpeg write its last segment, stores what is left,
   * then the whole show's playlists as VOD (`#EXT-X-ENDLIST`), unless `final`
   * (asked once the uploads are done) says another publish has the show now.
   */
  stop(options?: { final?: () => boolean }): Promise<void>;
}

/** One ffmpeg process packaging part of a publish into its own work folder. */
interface FfmpegRun {
  workDir: string;
  /** Writes go to ffmpeg's stdin (buffered until it runs). */
  write(buffer: Buffer): void;
  /** Ends its input and waits until it has written its last segment (killed if it takes too long). */
  close(): Promise<void>;
}

function startFfmpeg(id: string, packaging: Packaging, config: HlsConfig, streamName: string, log: Logger): FfmpegRun {
  const workDir = mkdtempSync(join(tmpdir(), 'stagedoor-ingest-work-'));
  // Own process group: a Ctrl-C in the terminal must not kill ffmpeg before we close its input and it writes the
  // final playlist. It still ends with us: our death closes its stdin.
  const ffmpeg = spawn(config.ffmpegPath, ffmpegArgs(workDir, id, config.segmentSeconds, packaging), { stdio: ['pipe', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  ffmpeg.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  // ffmpeg gone means writes fail with EPIPE; its exit is reported below.
  ffmpeg.stdin.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => {
    ffmpeg.once('error', (error) => {
      log.error('ffmpeg could not start', { stream_name: streamName, ffmpeg: config.ffmpegPath, error: error.message });
      resolve();
    });
    ffmpeg.once('close', (code, signal) => {
      if (code !== 0) log.error('ffmpeg ended with an error', { stream_name: streamName, code, signal, stderr: stderr.trim() });
      resolve();
    });
  });
  return {
    workDir,
    write: (buffer) => void ffmpeg.stdin.write(buffer),
    async close() {
      ffmpeg.stdin.end();
      const killer = setTimeout(() => ffmpeg.kill('SIGKILL'), FFMPEG_EXIT_TIMEOUT_MS);
      await exited;
      clearTimeout(killer);
    },
  };
}

/**
 * Packages one publish: ffmpeg fed in-process from the broadcast, segments
 * stored under `streams/<streamName>/` as they appear and appended to the
 * event's recording (see recording.ts), which the live playlists are made from.
 *
 * Without a ladder the video is copied, unless its keyframes are too far
 * apart for the segment length (`reencode: 'auto'`, see keyframe-judge.ts):
 * the tags are held until the first keyframes tell, then go to one ffmpeg
 * that copies or one that re-encodes with a keyframe every segment. A copied
 * publish whose keyframes drift apart later switches to re-encoding at once:
 * the copy ends where it stands, and a new part, re-encoded from the last
 * keyframe with the picture before the switch cut off, follows it.
 */
export async function startHlsJob(args: {
  broadcast: BroadcastServer;
  streamName: string;
  publishId: string;
  config: HlsConfig;
  log: Logger;
  metrics: Pick<IngestMetrics, 'count'>;
  /** The publish's video is being re-encoded from now on (or transcoded into a ladder). */
  onReencoding?: () => void;
}): Promise<HlsJob> {
  const { broadcast, streamName, publishId, config, log, metrics, onReencoding } = args;
  const live: LiveSettings = { segmentSeconds: config.segmentSeconds, dvrWindowSeconds: config.dvrWindowSeconds ?? DEFAULT_DVR_WINDOW_SECONDS };
  const recording = await Recording.open(config.store, streamName, log, { id: publishId, ...live });
  await recording.putLivePlaylists();
  const bufferLimitBytes = config.bufferLimitBytes ?? DEFAULT_BUFFER_LIMIT_BYTES;

  let current: { run: FfmpegRun; uploader: Promise<ReturnType<typeof startUploader>> } | undefined;
  /** The runs before the current one, until their segments are stored: the current run's part starts after them. */
  let previousDone: Promise<void> = Promise.resolve();

  const begin = (id: string, packaging: Packaging) => {
    const run = startFfmpeg(id, packaging, config, streamName, log);
    const uploader = previousDone.then(() => {
      if (id !== publishId) recording.startPart(id, live);
      return startUploader({ workDir: run.workDir, recording, store: config.store, bufferLimitBytes, log, metrics });
    });
    current = { run, uploader };
    if (packaging.kind !== 'copy') {
      log.info(packaging.kind === 'ladder' ? 'hls transcoding into a ladder' : 'hls re-encoding the video: keyframes further apart than the segment length', {
        stream_name: streamName,
        publish_id: id,
        ...(packaging.kind === 'reencode' ? { video_kbps: packaging.videoKbps, from_ms: packaging.fromMs } : {}),
      });
      onReencoding?.();
    }
  };
  const write = (buffers: Buffer[]) => {
    for (const buffer of buffers) current!.run.write(buffer);
  };
  /** Ends the current run: ffmpeg's last segment, then what is left is stored, after the runs before it. */
  const endCurrent = (ownsShow?: () => boolean) => {
    const { run, uploader } = current!;
    const before = previousDone;
    previousDone = (async () => {
      await run.close();
      await before;
      await (await uploader).finish(ownsShow);
      await rm(run.workDir, { recursive: true, force: true });
    })();
    current = undefined;
    return previousDone;
  };

  // What the judge needs to decide, and to re-encode the bit rate the publisher sends.
  const judge = config.ladder.length === 0 && (config.reencode ?? 'auto') === 'auto' ? new KeyframeJudge(config.segmentSeconds) : undefined;
  let held: Buffer[] | undefined = judge ? [] : undefined;
  /** Tags since the last keyframe, while copying under the judge: a switch re-encodes from there. */
  let gop: Buffer[] = [];
  const sent = { videoBytes: 0, firstMs: undefined as number | undefined, lastMs: 0 };
  const videoKbps = () => {
    const declared = broadcast.publisher?.videoDatarate;
    if (declared && declared > 0) return Math.round(declared);
    const spanMs = sent.lastMs - (sent.firstMs ?? sent.lastMs);
    return spanMs > 0 ? Math.round((sent.videoBytes * 8) / spanMs) : FALLBACK_VIDEO_KBPS;
  };

  if (config.ladder.length > 0) begin(publishId, { kind: 'ladder', ladder: config.ladder });
  else if (!judge) begin(publishId, { kind: 'copy' });

  const onTag = (buffer: Buffer) => {
    if (!judge) return write([buffer]);
    const timeMs = flvTagTime(buffer);
    const frame = flvVideoFrame(buffer);
    if (frame) {
      sent.videoBytes += buffer.length;
      sent.firstMs ??= frame.dtsMs;
      sent.lastMs = frame.dtsMs;
    }
    const verdict = timeMs === undefined ? undefined : judge.tag(timeMs, frame?.keyframe);
    if (held) {
      held.push(buffer);
      if (!verdict) return;
      begin(publishId, verdict === 'copy' ? { kind: 'copy' } : { kind: 'reencode', videoKbps: videoKbps() });
      write(held);
      held = undefined;
      return;
    }
    if (verdict === 'reencode' && frame) {
      // The copy stops before this frame; the re-encode decodes from the last keyframe and keeps the picture from here.
      void endCurrent();
      begin(`${publishId}-reencoded`, { kind: 'reencode', videoKbps: videoKbps(), fromMs: frame.dtsMs });
      const preamble = [broadcast.flvHeader, broadcast.flvMetaData, broadcast.flvAudioHeader, broadcast.flvVideoHeader].filter((b): b is Buffer => b !== null);
      write([...preamble, ...gop.filter((tag) => flvVideoFrame(tag)), buffer]);
      gop = [];
      return;
    }
    if (judge.verdict === 'copy') {
      if (frame?.keyframe) gop = [];
      if (timeMs !== undefined) gop.push(buffer);
    }
    write([buffer]);
  };
  // A failure here (no work folder) must not reach node-media-server's broadcast loop: this publish goes unpackaged.
  let failed = false;
  const pipe = new FlvTap(broadcast.streamPath, (buffer) => {
    if (failed) return;
    try {
      onTag(buffer);
    } catch (error) {
      failed = true;
      held = undefined;
      log.error('hls packaging failed, the publish is not packaged', { stream_name: streamName, publish_id: publishId, error: describeError(error) });
    }
  });
  broadcast.postPlay(pipe);
  log.info('hls packaging started', { stream_name: streamName, publish_id: publishId, store: config.store.location });

  let stopping: Promise<void> | undefined;
  return {
    stop({ final = () => true } = {}) {
      stopping ??= (async () => {
        broadcast.donePlay(pipe);
        // The publish ended before its keyframes told: copy what there is.
        if (held && held.length > 0) {
          begin(publishId, { kind: 'copy' });
          write(held);
        }
        held = undefined;
        await (current ? endCurrent(final) : previousDone);
        if (final()) await putFinalPlaylists(recording, log);
        log.info('hls packaging ended', { stream_name: streamName, publish_id: publishId });
      })();
      return stopping;
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

import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BaseSession from 'node-media-server/src/session/base_session.js';
import type BroadcastServer from 'node-media-server/src/server/broadcast_server.js';
import type { Logger } from '../log';
import type { IngestMetrics } from '../metrics';
import { ffmpegArgs, type PackagingOptions } from './ffmpeg-args';
import { describeError } from '../log';
import { Recording } from '../../../recording/recording';
import type { HlsStore } from '../../../recording/store';
import { DEFAULT_BUFFER_LIMIT_BYTES, startUploader } from './uploader';

export interface HlsConfig extends PackagingOptions {
  store: HlsStore;
  ffmpegPath: string;
  /** Seconds of the live playlist behind the live edge (the DVR window). Default 120. */
  dvrWindowSeconds?: number;
  /** Bound of the local buffer of unstored segments while storage fails. Default 2 GiB. */
  bufferLimitBytes?: number;
}

export const DEFAULT_DVR_WINDOW_SECONDS = 120;

const FINAL_PLAYLIST_RETRY_MS = 60_000;
/** How long ffmpeg gets to write its final segment and playlist after its input ends. */
const FFMPEG_EXIT_TIMEOUT_MS = 15_000;

/**
 * A subscriber of the broadcast that writes FLV into ffmpeg's stdin, like
 * node-media-server's own NodeRecordSession writes a file. Its empty `ip`
 * marks it internal: node-media-server emits no play events for it.
 */
class FlvPipe extends BaseSession {
  constructor(
    streamPath: string,
    private readonly sink: NodeJS.WritableStream,
  ) {
    super();
    this.protocol = 'flv';
    this.streamPath = streamPath;
  }

  override sendBuffer = (buffer: Buffer) => {
    this.outBytes += buffer.length;
    this.sink.write(buffer);
  };
}

export interface HlsJob {
  /**
   * Ends the input, lets ffmpeg write its last segment, stores what is left,
   * then the whole show's playlists as VOD (`#EXT-X-ENDLIST`), unless `final`
   * (asked once the uploads are done) says another publish has the show now.
   */
  stop(options?: { final?: () => boolean }): Promise<void>;
}

/**
 * Packages one publish: ffmpeg fed in-process from the broadcast, segments
 * stored under `streams/<streamName>/` as they appear and appended to the
 * event's recording (see recording.ts), which the live playlist is made from.
 */
export async function startHlsJob(args: {
  broadcast: BroadcastServer;
  streamName: string;
  publishId: string;
  config: HlsConfig;
  log: Logger;
  metrics: Pick<IngestMetrics, 'count'>;
}): Promise<HlsJob> {
  const { broadcast, streamName, publishId, config, log, metrics } = args;
  const recording = await Recording.open(config.store, streamName, log, publishId);
  const workDir = await mkdtemp(join(tmpdir(), 'stagedoor-ingest-work-'));
  const dvrWindowSeconds = config.dvrWindowSeconds ?? DEFAULT_DVR_WINDOW_SECONDS;
  await recording.putLivePlaylists(dvrWindowSeconds);
  const bufferLimitBytes = config.bufferLimitBytes ?? DEFAULT_BUFFER_LIMIT_BYTES;
  const uploader = startUploader({ workDir, recording, store: config.store, dvrWindowSeconds, bufferLimitBytes, log, metrics });
  // Own process group: a Ctrl-C in the terminal must not kill ffmpeg before we close its input and it writes the
  // final playlist. It still ends with us: our death closes its stdin.
  const ffmpeg = spawn(config.ffmpegPath, ffmpegArgs(workDir, publishId, config), { stdio: ['pipe', 'ignore', 'pipe'], detached: true });

  let stderr = '';
  ffmpeg.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  // ffmpeg gone means writes fail with EPIPE; its exit is reported below.
  ffmpeg.stdin.on('error', () => undefined);
  const exited = new Promise<number | null>((resolve) => {
    ffmpeg.once('error', (error) => {
      log.error('ffmpeg could not start', { stream_name: streamName, ffmpeg: config.ffmpegPath, error: error.message });
      resolve(null);
    });
    ffmpeg.once('close', (code, signal) => {
      if (code !== 0) log.error('ffmpeg ended with an error', { stream_name: streamName, code, signal, stderr: stderr.trim() });
      resolve(code);
    });
  });

  const pipe = new FlvPipe(broadcast.streamPath, ffmpeg.stdin);
  broadcast.postPlay(pipe);
  log.info('hls packaging started', { stream_name: streamName, publish_id: publishId, store: config.store.location });

  let stopping: Promise<void> | undefined;
  return {
    stop({ final = () => true } = {}) {
      stopping ??= (async () => {
        broadcast.donePlay(pipe);
        ffmpeg.stdin.end();
        const killer = setTimeout(() => ffmpeg.kill('SIGKILL'), FFMPEG_EXIT_TIMEOUT_MS);
        await exited;
        clearTimeout(killer);
        await uploader.finish();
        if (final()) await putFinalPlaylists(recording, log);
        await rm(workDir, { recursive: true, force: true });
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
    const recording = await Recording.open(config.store, streamName, log);
    await recording.putLivePlaylists(config.dvrWindowSeconds ?? DEFAULT_DVR_WINDOW_SECONDS);
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

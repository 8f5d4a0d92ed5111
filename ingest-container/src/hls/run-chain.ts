import { rm } from 'node:fs/promises';
import type { Logger } from '../log';
import type { IngestMetrics } from '../metrics';
import type { Recording, LiveSettings } from '../../../recording/recording';
import type { HlsStore } from '../../../recording/store';
import type { Packaging } from './ffmpeg-args';
import { startFfmpeg, type FfmpegRun } from './ffmpeg-run';
import { startUploader } from './uploader';
import { patternSignsText } from '../../../recording/watermark-pattern';

/** The ffmpeg runs of one publish, one after another, each stored after the ones before it. */
export interface RunChain {
  /** Starts a run; a run with another id than the publish's is a new part of the recording (a discontinuity). */
  begin(id: string, packaging: Packaging): void;
  /** To the current run's ffmpeg. */
  write(buffers: readonly Buffer[]): void;
  /**
   * Ends the current run (ffmpeg's last segment, then what is left is stored) and resolves once it and every
   * run before it are stored; `ownsShow` as for the uploader's `finish`. Without a current run, waits for those before.
   */
  endCurrent(ownsShow?: () => boolean): Promise<void>;
}

export function createRunChain(deps: {
  publishId: string;
  streamName: string;
  recording: Recording;
  live: LiveSettings;
  config: { store: HlsStore; ffmpegPath: string; segmentSeconds: number; bufferLimitBytes: number };
  log: Logger;
  metrics: Pick<IngestMetrics, 'count'>;
  /** A run began: it re-encodes the video (or transcodes a ladder), or copies it. */
  onPackaging?: (reencoding: boolean) => void;
}): RunChain {
  const { publishId, streamName, recording, live, config, log, metrics, onPackaging } = deps;
  let current: { run: FfmpegRun; uploader: Promise<ReturnType<typeof startUploader>> } | undefined;
  /** The runs before the current one, until their segments are stored: the current run's part starts after them. */
  let previousDone: Promise<void> = Promise.resolve();

  return {
    begin(id, packaging) {
      const run = startFfmpeg(id, packaging, config, streamName, log);
      const uploader = previousDone.then(() => {
        if (id !== publishId) recording.startPart(id, live);
        if (packaging.kind === 'watermark') recording.markPart({ signs: patternSignsText(packaging.pattern) });
        return startUploader({
          workDir: run.workDir,
          recording,
          store: config.store,
          bufferLimitBytes: config.bufferLimitBytes,
          log,
          metrics,
          fingerprints: packaging.kind === 'watermark' ? { rendition: lowestRendition(packaging), ffmpegPath: config.ffmpegPath } : undefined,
        });
      });
      current = { run, uploader };
      if (packaging.kind === 'watermark') {
        log.info('hls watermarking: every rendition encoded twice (A and B)', {
          stream_name: streamName,
          publish_id: id,
          renditions: packaging.renditions.map((r) => `${r.width}x${r.height}@${r.videoKbps}k`).join(','),
        });
      } else if (packaging.kind !== 'copy') {
        log.info(packaging.kind === 'ladder' ? 'hls transcoding into a ladder' : 'hls re-encoding the video: keyframes further apart than the segment length', {
          stream_name: streamName,
          publish_id: id,
          ...(packaging.kind === 'reencode' ? { video_kbps: packaging.videoKbps, from_ms: packaging.fromMs } : {}),
        });
      }
      onPackaging?.(packaging.kind !== 'copy');
    },
    write(buffers) {
      for (const buffer of buffers) current!.run.write(buffer);
    },
    endCurrent(ownsShow) {
      if (!current) return previousDone;
      const { run, uploader } = current;
      const before = previousDone;
      previousDone = (async () => {
        await run.close();
        await before;
        await (await uploader).finish(ownsShow);
        await rm(run.workDir, { recursive: true, force: true });
      })();
      current = undefined;
      return previousDone;
    },
  };
}

/** The work folder's playlist of a watermarked part's lowest rendition: its segments get the fingerprints. */
function lowestRendition(packaging: Extract<Packaging, { kind: 'watermark' }>): string {
  if (!packaging.ladder) return 'index.m3u8';
  const heights = packaging.renditions.map((r) => r.height);
  return `index_${heights.indexOf(Math.min(...heights))}.m3u8`;
}

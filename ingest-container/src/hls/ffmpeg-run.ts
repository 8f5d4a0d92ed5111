import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../log';
import { patternFrameYuv420 } from '../../../recording/watermark-pattern';
import { ffmpegArgs, patternFile, type Packaging } from './ffmpeg-args';

/** How long ffmpeg gets to write its final segment and playlist after its input ends. */
const FFMPEG_EXIT_TIMEOUT_MS = 15_000;

/** One ffmpeg process packaging part of a publish into its own work folder. */
export interface FfmpegRun {
  workDir: string;
  /** Writes go to ffmpeg's stdin (buffered until it runs). */
  write(buffer: Buffer): void;
  /** Ends its input and waits until it has written its last segment (killed if it takes too long). */
  close(): Promise<void>;
}

export function startFfmpeg(id: string, packaging: Packaging, options: { ffmpegPath: string; segmentSeconds: number }, streamName: string, log: Logger): FfmpegRun {
  const workDir = mkdtempSync(join(tmpdir(), 'stagedoor-ingest-work-'));
  // A watermarked part's pattern frames, one per rendition at its size, are inputs of the run.
  if (packaging.kind === 'watermark') {
    packaging.renditions.forEach((r, i) => writeFileSync(patternFile(workDir, i), patternFrameYuv420(packaging.pattern, r.width, r.height)));
  }
  // Own process group: a Ctrl-C in the terminal must not kill ffmpeg before we close its input and it writes the
  // final playlist. It still ends with us: our death closes its stdin.
  const ffmpeg = spawn(options.ffmpegPath, ffmpegArgs(workDir, id, options.segmentSeconds, packaging), { stdio: ['pipe', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  ffmpeg.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  // ffmpeg gone means writes fail with EPIPE; its exit is reported below.
  ffmpeg.stdin.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => {
    ffmpeg.once('error', (error) => {
      log.error('ffmpeg could not start', { stream_name: streamName, ffmpeg: options.ffmpegPath, error: error.message });
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

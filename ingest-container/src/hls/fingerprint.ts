import { spawn } from 'node:child_process';
import { recordingPrefix } from '../../../recording/recording';

/**
 * A segment's fingerprint for the tracer's time alignment (docs/watermark-design.md section 4): its
 * picture as raw 8-bit luma, 16 × 9 at 10 frames/s, from the segment's start (about 1.4 KB a second).
 */
export const FINGERPRINT_FILTER = 'fps=10,scale=16:9:flags=area,format=gray';

/** How long the small ffmpeg run of one fingerprint may take. */
const FINGERPRINT_TIMEOUT_MS = 20_000;

/** `recordings/<eventId>/fingerprints/<part>_<nnnnn>.fp` for a watermarked segment of any rendition or version; undefined for other names. */
export function fingerprintKey(streamName: string, segment: string): string | undefined {
  const match = /^([A-Za-z0-9_-]+_[0-9]+)(\.[0-9]+)?\.[wab]\.ts$/.exec(segment);
  return match ? `${recordingPrefix(streamName)}fingerprints/${match[1]}.fp` : undefined;
}

/** The fingerprint of a local segment file; rejects when ffmpeg fails. */
export function fingerprintOf(ffmpegPath: string, file: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const args = ['-hide_banner', '-loglevel', 'error', '-i', file, '-map', '0:v:0', '-vf', FINGERPRINT_FILTER, '-f', 'rawvideo', 'pipe:1'];
    const ffmpeg = spawn(ffmpegPath, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: FINGERPRINT_TIMEOUT_MS });
    const chunks: Buffer[] = [];
    let stderr = '';
    ffmpeg.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    ffmpeg.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    ffmpeg.once('error', reject);
    ffmpeg.once('close', (code, signal) => {
      if (code === 0) resolve(Buffer.concat(chunks));
      else reject(new Error(`ffmpeg fingerprint ended with ${code ?? signal}: ${stderr.trim()}`));
    });
  });
}

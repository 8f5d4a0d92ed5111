/**
 * ffmpeg steps of the watermark benchmark: making A and B with the pattern, cutting and splicing
 * segments as the edge serves them, a restreamer's re-encodes, PSNR/SSIM, and each segment's mean
 * luma for the bit reader. Every ffmpeg is `owned` (stopped if the benchmark is interrupted) and
 * timed with /usr/bin/time, so the benchmark also gets the CPU that marking costs.
 */
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { frameRange, meanOfFrames, readWindowFrames, SAMPLE_FPS, type LumaFrame } from '../../functions/domain/watermark';
import { owned } from './cleanup';

export interface Run {
  /** User + system CPU seconds of the ffmpeg. */
  cpuSeconds: number;
  stderr: string;
  stdout?: Buffer;
}

/** Runs ffmpeg to the end; rejects with its stderr on failure. */
export async function ffmpeg(args: string[], dir: string, keepStdout = false): Promise<Run> {
  const timeFile = join(dir, `time-${process.hrtime.bigint()}.txt`);
  const child = owned(spawn('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, 'ffmpeg', '-hide_banner', '-y', ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => keepStdout && out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`ffmpeg ${args.join(' ')} exited with ${code}:\n${stderr.slice(-2000)}`);
  const [user, system] = (await readFile(timeFile, 'utf8')).trim().split(/\s+/).map(Number);
  return { cpuSeconds: user! + system!, stderr, stdout: keepStdout ? Buffer.concat(out) : undefined };
}

/** The ingest's encode of the top rung (docs/ingest.md): libx264 veryfast zerolatency, a keyframe every 1 s segment. */
export const TOP_RUNG = [
  '-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-profile:v', 'main', '-pix_fmt', 'yuv420p',
  '-b:v', '2800k', '-maxrate', '2800k', '-bufsize', '5600k',
  '-force_key_frames', 'expr:gte(t,n_forced*1)', '-sc_threshold', '0', '-an', '-f', 'mpegts',
];

/**
 * A and B from one decode, as the ingest would make them: the source split in two, blended with the
 * pattern frame (looped) by `grainmerge` (X + P) and `grainextract` (X − P), each encoded.
 */
export async function encodeVersions(source: string, patternYuv: string, size: string, dir: string): Promise<Run> {
  const graph = [
    '[1:v]loop=loop=-1:size=1,split[p1][p2]',
    '[0:v]split[x1][x2]',
    '[x1][p1]blend=all_mode=grainmerge:shortest=1[a]',
    '[x2][p2]blend=all_mode=grainextract:shortest=1[b]',
  ].join(';');
  return ffmpeg([
    '-i', source, '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-video_size', size, '-framerate', '30', '-i', patternYuv,
    '-filter_complex', graph,
    '-map', '[a]', ...TOP_RUNG, join(dir, 'A.ts'),
    '-map', '[b]', ...TOP_RUNG, join(dir, 'B.ts'),
  ], dir);
}

/** 1 s segments of a version, cut at its keyframes: `<prefix>_000.ts`, … */
export async function cutSegments(file: string, prefix: string, dir: string): Promise<void> {
  await ffmpeg(['-i', file, '-c', 'copy', '-f', 'segment', '-segment_time', '1', '-reset_timestamps', '0', '-segment_format', 'mpegts', join(dir, `${prefix}_%03d.ts`)], dir);
}

/** What one viewer received: segment n from A (bit 0) or B (bit 1), spliced as a player would. */
export async function spliceDelivered(bits: readonly number[], dir: string, name = 'delivered'): Promise<string> {
  const list = join(dir, `${name}.txt`);
  await writeFile(list, bits.map((bit, n) => `file '${join(dir, `${bit === 0 ? 'A' : 'B'}_${String(n).padStart(3, '0')}.ts`)}'`).join('\n'));
  const delivered = join(dir, `${name}.ts`);
  await ffmpeg(['-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', delivered], dir);
  return delivered;
}

/** PSNR (dB, average over all planes) and SSIM (All) between two videos, frame by frame. */
export async function similarity(first: string, second: string, dir: string): Promise<{ psnr: number; psnrY: number; ssim: number }> {
  const run = await ffmpeg(['-i', first, '-i', second, '-lavfi', '[0:v][1:v]psnr;[0:v][1:v]ssim', '-f', 'null', '-'], dir);
  const psnr = /PSNR y:([\d.inf]+).*average:([\d.inf]+)/.exec(run.stderr);
  const ssim = /SSIM .*All:([\d.]+)/.exec(run.stderr);
  return { psnrY: Number(psnr?.[1]), psnr: Number(psnr?.[2]), ssim: Number(ssim?.[1]) };
}

/**
 * Each 1 s segment's mean luma at width × height: the video sampled at 10 frames per second from its
 * first frame (so a copy at another frame rate reads the same), the frames of [n + 0.15, n + 0.85] s
 * averaged (away from the cuts, where a copy's timing may be off by a frame or two).
 */
export async function segmentMeans(file: string, width: number, height: number, segments: number, dir: string): Promise<LumaFrame[]> {
  const vf = `setpts=PTS-STARTPTS,fps=${SAMPLE_FPS},scale=${width}:${height}:flags=area,format=gray`;
  const run = await ffmpeg(['-i', file, '-vf', vf, '-f', 'rawvideo', 'pipe:1'], dir, true);
  return Array.from({ length: segments }, (_, n) => meanOfFrames(run.stdout!, width, height, frameRange(readWindowFrames(n, 1))) ?? { width, height, data: new Float32Array(width * height) });
}

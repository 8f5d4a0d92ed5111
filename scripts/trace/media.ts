/** The local ffmpeg and ffprobe the tracer reads videos with (any container ffmpeg reads). */
import { spawn } from 'node:child_process';
import { SAMPLE_FPS } from '../../functions/domain/watermark';

export interface VideoInfo {
  width: number;
  height: number;
  /** Frames per second as the container says (for the report). */
  fps: number;
  seconds: number;
}

function run(command: string, args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.once('error', (error) => reject(new Error(`${command} could not start (${error.message}): is it installed?`)));
    child.once('exit', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`${command} failed (exit ${code}): ${stderr.trim().split('\n').slice(-3).join(' ')}`))));
  });
}

/** The first video stream's size and rate, and the file's duration. */
export async function probeVideo(file: string): Promise<VideoInfo> {
  const out = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height,avg_frame_rate:format=duration', '-of', 'json', file]);
  const json = JSON.parse(out.toString()) as { streams?: { width?: number; height?: number; avg_frame_rate?: string }[]; format?: { duration?: string } };
  const stream = json.streams?.[0];
  if (!stream?.width || !stream.height) throw new Error(`${file}: no video stream`);
  const [num, den] = (stream.avg_frame_rate ?? '0/1').split('/').map(Number);
  return { width: stream.width, height: stream.height, fps: den ? num! / den : 0, seconds: Number(json.format?.duration ?? 0) };
}

/**
 * The video as raw 8-bit gray frames at width × height, 10 frames per second from its first frame:
 * the fingerprint's sampling (16×9) and the reader's. `setpts=PTS-STARTPTS` makes a segment's or a
 * copy's first frame time 0 whatever its timestamps.
 */
export function grayFrames(file: string, width: number, height: number): Promise<Buffer> {
  const vf = `setpts=PTS-STARTPTS,fps=${SAMPLE_FPS},scale=${width}:${height}:flags=area,format=gray`;
  return run('ffmpeg', ['-v', 'error', '-i', file, '-an', '-vf', vf, '-f', 'rawvideo', 'pipe:1']);
}

/**
 * The frame-number clock of the glass-to-glass benchmarks: ffmpeg publishes a picture whose frame number
 * is drawn as 16 black/white blocks at 30 fps in real time; the viewer page's video is read through a
 * canvas; latency = now − the instant that frame left the publisher.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Page } from 'playwright-core';

export const FPS = 30;
const BITS = 16;
const BLOCK = 20;
export const SETTLE_S = Number(process.env.SETTLE || 10);
export const READINGS = Number(process.env.READINGS || 30);

/** x264's keyframe options for a publisher: every `gop` frames, or where an expression of the frame number `n` says. */
export type Keyframes = { gop: number } | { at: string };
export const EVERY_SECOND: Keyframes = { gop: FPS };
export const OBS_DEFAULT: Keyframes = { gop: 250 };
/** OBS at Keyframe Interval 1 s: its first GOP is 2 s. */
export const FIRST_GOP_2S: Keyframes = { at: `eq(n,0)+gte(n,${2 * FPS})*eq(mod(n,${FPS}),0)` };

export interface Publisher {
  child: ChildProcess;
  /** When frame 0 left ffmpeg (ms since the epoch). */
  startedAt(): number;
}

/**
 * ffmpeg drawing the frame number N in binary (bit i: block i from the left, white = 1), to an RTMP URL as FLV,
 * or with `format: 'mpegts'` to an SRT URL as an SRT encoder sends it.
 */
export function startPublisher(url: string, keyframes: Keyframes, format: 'flv' | 'mpegts' = 'flv'): Publisher {
  const picture = `color=c=black:s=${BITS * BLOCK}x${BLOCK * 2}:r=${FPS},format=gray,geq=lum='if(mod(floor(N/pow(2,floor(X/${BLOCK}))),2),235,16)'`;
  const x264 = 'gop' in keyframes ? ['-g', String(keyframes.gop), '-x264-params', 'scenecut=0'] : ['-force_key_frames', `expr:${keyframes.at}`, '-x264-params', 'keyint=100000:scenecut=0'];
  const child = spawn(
    'ffmpeg',
    [
      ...['-hide_banner', '-loglevel', 'error', '-nostdin', '-re', '-f', 'lavfi', '-i', picture],
      ...['-vf', 'format=yuv420p', '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', ...x264],
      ...['-progress', 'pipe:1', '-stats_period', '0.25', '-f', format, url],
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  // Frame n leaves at start + n/FPS. A progress report comes after its frames, so each one bounds the start
  // from above: the smallest bound is the best estimate.
  let start = Infinity;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const match = /^frame=(\d+)$/.exec(line.trim());
    if (match && Number(match[1]) > 0) start = Math.min(start, Date.now() - (Number(match[1]) / FPS) * 1000);
  });
  return { child, startedAt: () => start };
}

export const stopPublisher = (publisher: Publisher) =>
  new Promise<void>((resolve) => {
    if (publisher.child.exitCode !== null) return resolve();
    publisher.child.once('exit', () => resolve());
    // SIGINT: ffmpeg ends the stream cleanly (FCUnpublish), as OBS's Stop Streaming does.
    publisher.child.kill('SIGINT');
  });

/** Waits until the viewer page plays (its overlay gone, frames moving), then SETTLE seconds more. */
export async function playing(page: Page): Promise<void> {
  await page.waitForFunction(
    () => document.getElementById('overlay')!.hidden && (document.querySelector('video')?.currentTime ?? 0) > 0.5,
    null,
    { timeout: 120_000, polling: 250 },
  );
  await page.waitForTimeout(SETTLE_S * 1000);
}

/** READINGS frame numbers read off the video once a second, as latencies (ms) against `publisher`. */
export async function readLatencies(page: Page, publisher: Publisher): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < READINGS; i++) {
    const frame = await page.evaluate(
      ({ bits, block }) => {
        const video = document.querySelector('video')!;
        const canvas = document.createElement('canvas');
        canvas.width = video.videoWidth;
        canvas.height = video.videoHeight;
        const context = canvas.getContext('2d', { willReadFrequently: true })!;
        context.drawImage(video, 0, 0);
        let n = 0;
        for (let bit = 0; bit < bits; bit++) {
          const [r] = context.getImageData(bit * block + block / 2, block, 1, 1).data;
          if (r! > 128) n += 2 ** bit;
        }
        return { n, at: Date.now() };
      },
      { bits: BITS, block: BLOCK },
    );
    latencies.push(frame.at - (publisher.startedAt() + (frame.n / FPS) * 1000));
    await page.waitForTimeout(1000);
  }
  return latencies;
}

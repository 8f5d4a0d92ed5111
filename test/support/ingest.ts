/** Real clients for the ingest tests: ffmpeg as publisher and player, node-media-server's RTMP client for exact status codes, small HTTP servers. */
import { spawn, execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { afterAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import RtmpClient from 'node-media-server/src/protocol/rtmp_client.js';
import { createLogger } from '../../ingest-container/src/log';

const tempDirs: string[] = [];
/** A fresh folder under the OS temp dir, removed when the test file is done. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `stagedoor-${prefix}-`));
  tempDirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

export interface Run {
  /** Exit code (null when killed by a signal) and everything printed on stderr. */
  done: Promise<{ code: number | null; stderr: string }>;
  running(): boolean;
  stop(): Promise<{ code: number | null; stderr: string }>;
  /** SIGKILL: for a publisher, a dropped connection (no FCUnpublish/deleteStream). */
  kill(): Promise<{ code: number | null; stderr: string }>;
}

export function run(command: string, args: string[]): Run {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) => child.once('close', (code) => resolve({ code, stderr })));
  return {
    done,
    running: () => child.exitCode === null && child.signalCode === null,
    stop: () => {
      child.kill('SIGINT');
      return done;
    },
    kill: () => {
      child.kill('SIGKILL');
      return done;
    },
  };
}

/**
 * ffmpeg publishing a test pattern with sound at 25 fps; `seconds` undefined = until stopped; `gop`: frames between
 * keyframes; `keyframesAt`: instead, an ffmpeg expression of the frame number `n` and time `t` that is true where a
 * keyframe goes (and nowhere else: x264's own keyframes are off); `preset` (x264, default ultrafast) and `size`
 * (default 320x240) and `rate` (default 25 fps): the encoder settings, as a restarted OBS with another profile (or a
 * backup encoder) changes them.
 */
export function publish(url: string, seconds?: number, options: { audio?: boolean; gop?: number; keyframesAt?: string; preset?: string; size?: string; rate?: number } = {}): Run {
  const audio = options.audio ?? true;
  const keyframes = options.keyframesAt
    ? ['-force_key_frames', `expr:${options.keyframesAt}`, '-x264-params', 'keyint=100000:scenecut=0']
    : ['-g', String(options.gop ?? 50)];
  return run('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-re',
    '-f', 'lavfi', '-i', `testsrc=size=${options.size ?? '320x240'}:rate=${options.rate ?? 25}`,
    ...(audio ? ['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100'] : []),
    ...(seconds === undefined ? [] : ['-t', String(seconds)]),
    '-c:v', 'libx264', '-preset', options.preset ?? 'ultrafast', ...keyframes, '-pix_fmt', 'yuv420p',
    ...(audio ? ['-c:a', 'aac'] : []),
    '-f', 'flv', url,
  ]);
}

/** ffmpeg playing `seconds` of the stream and discarding it; exits 0 only if media arrived. */
export function play(url: string, seconds = 1): Promise<{ code: number | null; stderr: string }> {
  return run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-rw_timeout', '15000000', '-i', url, '-t', String(seconds), '-f', 'null', '-']).done;
}

/**
 * The live media playlist of a stream written to a folder: `index.m3u8` is the multivariant playlist while on air, naming
 * it. Undefined until both are there; after the show `index.m3u8` is the whole show (VOD), returned as it is.
 */
export async function livePlaylist(streamDir: string): Promise<string | undefined> {
  const entry = await readFile(join(streamDir, 'index.m3u8'), 'utf8').catch(() => undefined);
  const variant = entry?.split('\n').find((line) => line.endsWith('.m3u8'));
  return variant ? readFile(join(streamDir, variant), 'utf8').catch(() => undefined) : entry;
}

export const ffprobe = (args: string[]) => promisify(execFile)('ffprobe', args, { encoding: 'utf8' });

export interface Status {
  code: string;
  level: string;
  description: string;
}

/** The first onStatus a publish or play gets back, read with a real RTMP client (ffmpeg prints only the description). */
export async function firstStatus(url: string, action: 'publish' | 'play'): Promise<Status> {
  const client = new RtmpClient();
  const status = new Promise<Status>((resolve, reject) => {
    client.onStatusCallback = (code: string, info: { level?: string; description?: string }) =>
      resolve({ code, level: info.level ?? '', description: info.description ?? '' });
    client.onCloseCallback = () => reject(new Error('closed without a status'));
  });
  await client.connect(url);
  await client.sendConnect();
  await client.sendCreateStream();
  const name = url.slice(url.indexOf('/', url.indexOf('//') + 2) + 1).split('/').slice(1).join('/');
  void (action === 'publish' ? client.sendPublish(name) : client.sendPlay(name)).catch(() => undefined);
  try {
    return await status;
  } finally {
    client.disconnect();
  }
}

export { httpServer, type TestHttpServer } from '../../harness/http-server';

/** Collects the server's log entries so tests wait on events rather than on time. */
export function logRecorder() {
  const entries: Record<string, any>[] = [];
  const waiters: { match: (e: Record<string, any>) => boolean; resolve: (e: Record<string, any>) => void }[] = [];
  const log = createLogger('debug', (line) => {
    const entry = JSON.parse(line);
    entries.push(entry);
    if (process.env.INGEST_TEST_LOG) process.stderr.write(line);
    for (const waiter of [...waiters]) {
      if (waiter.match(entry)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(entry);
      }
    }
  });
  /** Resolves with the first entry (already logged or to come) that matches. */
  const waitFor = (match: (e: Record<string, any>) => boolean) => {
    const seen = entries.find(match);
    return seen ? Promise.resolve(seen) : new Promise<Record<string, any>>((resolve) => waiters.push({ match, resolve }));
  };
  return { log, entries, waitFor };
}

export const uniqueName = (prefix: string) => `${prefix}${Math.random().toString(36).slice(2, 8)}`;

/** Polls a condition; bounded by the test's own timeout, never asserted on time. */
export async function until<T>(probe: () => Promise<T | undefined> | T | undefined, everyMs = 100): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Shared by the bench/ingest-*.ts scripts (not a benchmark itself): our
 * ingest and nginx with Debian's libnginx-mod-rtmp side by side on loopback,
 * publishers, and a real RTMP client that times the publish handshake.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readdir, writeFile, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import RtmpClient from 'node-media-server/src/protocol/rtmp_client.js';
import { folderStore, startIngestServer, createLogger, type HlsStore } from '../../ingest-container/src/index';
import { targetFor } from '../../recording/media-playlist';
import { livePlaylistName } from '../../recording/recording';
import { freePort } from '../../local/free-port';
import { httpServer } from '../../harness/http-server';
import { owned } from './cleanup';

export const SEGMENT_SECONDS = 2;
/** Our live media playlist (`index.m3u8` is the multivariant playlist naming it), comparable to nginx-rtmp's `index.m3u8`. */
export const OUR_LIVE_PLAYLIST = livePlaylistName('index.m3u8', targetFor(SEGMENT_SECONDS));

const tempDirs: string[] = [];
export const tempDir = async (prefix: string) => {
  const dir = await mkdtemp(join(tmpdir(), `stagedoor-bench-${prefix}-`));
  tempDirs.push(dir);
  // nginx started by root drops its workers to `nobody`, which must write HLS here.
  await chmod(dir, 0o777);
  return dir;
};

/** Removes every folder made by tempDir; call at the end of a bench. */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

export interface BenchServer {
  name: string;
  /** CPU seconds used so far by the server's own processes (ours: this process and its ffmpeg packagers). */
  cpuSeconds(): Promise<number>;
  /** `rtmp://127.0.0.1:<port>/live` */
  url: string;
  /** Where the live media playlist of a stream shows up (folder servers). */
  playlistPath(stream: string): string;
  close(): Promise<void>;
}

/** Our ingest, in this process, writing HLS to a folder (or a given store), optionally in callback mode. */
export async function startOurs(options: { hlsDir?: string; store?: HlsStore; callbackUrl?: string }): Promise<BenchServer> {
  const store = options.store ?? (options.hlsDir ? folderStore(options.hlsDir) : undefined);
  const server = await startIngestServer({
    listen: { host: '127.0.0.1', port: 0 },
    auth: options.callbackUrl ? { mode: 'callback', url: options.callbackUrl, timeoutMs: 5_000 } : { mode: 'none' },
    hls: store ? { store, ffmpegPath: process.env.FFMPEG_PATH || 'ffmpeg', segmentSeconds: SEGMENT_SECONDS, ladder: [] } : undefined,
    publishGraceMs: 0,
    log: createLogger('error'),
  });
  return {
    name: 'stagedoor ingest',
    cpuSeconds: async () => {
      const own = process.cpuUsage();
      return (own.user + own.system) / 1e6 + (await packagerCpuSeconds());
    },
    url: `${server.url}/live`,
    playlistPath: (stream) => join(options.hlsDir ?? '', 'streams', stream, OUR_LIVE_PLAYLIST),
    close: () => server.close(),
  };
}

/** CPU seconds used so far by the ffmpeg packagers our in-process ingest runs (its children reading FLV on stdin). */
export async function packagerCpuSeconds(): Promise<number> {
  const packagers = await processes((p) => p.ppid === process.pid && p.cmdline.includes('pipe:0'));
  return packagers.reduce((sum, p) => sum + p.cpuSeconds, 0);
}

const NGINX_MODULE = ['/usr/lib/nginx/modules/ngx_rtmp_module.so', '/usr/share/nginx/modules/ngx_rtmp_module.so'].find((path) => existsSync(path));

/**
 * nginx + libnginx-mod-rtmp as our own process: temp prefix, config, pid and
 * port on 127.0.0.1; HLS on with the same fragment length; one worker, the
 * setup nginx-rtmp's live streams are documented for.
 */
export async function startNginx(options: { hlsDir: string; onPublishUrl?: string }): Promise<BenchServer> {
  if (!NGINX_MODULE) throw new Error('libnginx-mod-rtmp not installed (ngx_rtmp_module.so not found)');
  const prefix = await tempDir('nginx');
  const port = await freePort();
  const config = `
load_module ${NGINX_MODULE};
daemon off;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 1024; }
rtmp {
  server {
    listen 127.0.0.1:${port};
    chunk_size 4096;
    application live {
      live on;
      record off;
      hls on;
      hls_path ${options.hlsDir};
      hls_nested on;
      hls_fragment ${SEGMENT_SECONDS}s;
      hls_playlist_length ${SEGMENT_SECONDS * 6}s;
      ${options.onPublishUrl ? `on_publish ${options.onPublishUrl};` : ''}
    }
  }
}
`;
  await writeFile(join(prefix, 'nginx.conf'), config);
  const child = owned(spawn('nginx', ['-p', prefix, '-c', join(prefix, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] }));
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  await waitForPort(port, child, () => stderr);
  return {
    name: 'nginx-rtmp',
    cpuSeconds: async () =>
      (await processes((p) => p.pid === child.pid || p.ppid === child.pid)).reduce((sum, p) => sum + p.cpuSeconds, 0),
    url: `rtmp://127.0.0.1:${port}/live`,
    playlistPath: (stream) => join(options.hlsDir, stream, 'index.m3u8'),
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGQUIT'); // graceful stop of master and worker
        await exited;
      }
      await rm(prefix, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createNetServer().listen(port, '127.0.0.1');
      socket.once('listening', () => socket.close(() => resolve(false)));
      socket.once('error', () => resolve(true));
    });
    if (open) return;
    await sleep(50);
  }
  throw new Error(`nginx did not listen on ${port}: ${output()}`);
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

interface ProcessInfo {
  pid: number;
  ppid: number;
  cmdline: string;
  cpuSeconds: number;
}

/** Processes from /proc that match, with their user + system CPU time (the machine is shared, so whole-machine load says nothing). */
async function processes(match: (p: ProcessInfo) => boolean): Promise<ProcessInfo[]> {
  const found: ProcessInfo[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readText(`/proc/${entry}/stat`);
    if (!stat) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const info = {
      pid: Number(entry),
      ppid: Number(fields[1]),
      cmdline: ((await readText(`/proc/${entry}/cmdline`)) ?? '').replaceAll('\0', ' '),
      cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS,
    };
    if (match(info)) found.push(info);
  }
  return found;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A local auth callback that says yes at once, for both servers (nginx posts a form, we post JSON). */
export async function startAllowCallback(): Promise<{ url: string; calls: () => number; close(): Promise<void> }> {
  const server = await httpServer((_body, _req, res) => res.end('ok'));
  return { url: `${server.url}/auth`, calls: () => server.requests.length, close: server.close };
}

/** ffmpeg publishing: a test pattern encoded live, or a pre-encoded file copied in a loop. */
export function startPublisher(url: string, source: { file: string } | { seconds: number }): ChildProcess {
  const input =
    'file' in source
      ? ['-re', '-stream_loop', '-1', '-i', source.file, '-c', 'copy']
      : [
          '-re', '-f', 'lavfi', '-i', 'testsrc=size=640x360:rate=25', '-f', 'lavfi', '-i', 'sine',
          '-t', String(source.seconds), '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-pix_fmt', 'yuv420p', '-c:a', 'aac',
        ];
  return owned(spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', ...input, '-f', 'flv', url], { stdio: 'ignore' }));
}

export function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}

/** Time (ms) for connect + createStream + publish until `NetStream.Publish.Start`, with a real RTMP client. */
export async function timePublishHandshake(url: string): Promise<number> {
  const client = new RtmpClient();
  const started = performance.now();
  try {
    const connecting = client.connect(url);
    // Without it, delayed ACKs on small command messages dominate the figure on both servers.
    (client as unknown as { socket: import('node:net').Socket | null }).socket?.setNoDelay(true);
    await connecting;
    await client.sendConnect();
    await client.sendCreateStream();
    await client.sendPublish(url.slice(url.lastIndexOf('/') + 1));
    return performance.now() - started;
  } finally {
    client.disconnect();
  }
}

/**
 * An H.264 + AAC clip made once per run: by default 2 Mbit/s at 720p30 with a 2 s GOP (frames). `noise` adds film grain
 * that changes every frame, so an encoder works on it as on a camera picture rather than a clean test pattern.
 */
export function makeClip(
  dir: string,
  seconds = 12,
  options: { height?: number; fps?: number; videoKbps?: number; gop?: number; preset?: string; noise?: boolean } = {},
): string {
  const { height = 720, fps = 30, videoKbps = 1900, gop = 60, preset = 'ultrafast', noise = false } = options;
  const file = join(dir, `clip-${height}p${fps}-${videoKbps}k-g${gop}${noise ? '-noise' : ''}.flv`);
  const picture = `testsrc2=size=${(height * 16) / 9}x${height}:rate=${fps}${noise ? ',noise=alls=8:allf=t' : ''}`;
  execFileSync('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-y',
    '-f', 'lavfi', '-i', picture, '-f', 'lavfi', '-i', 'sine=frequency=440',
    '-t', String(seconds), '-c:v', 'libx264', '-preset', preset, '-b:v', `${videoKbps}k`, '-maxrate', `${videoKbps}k`, '-bufsize', `${videoKbps * 2}k`,
    '-g', String(gop), '-keyint_min', String(gop), '-sc_threshold', '0', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '96k', file,
  ]);
  return file;
}

export async function readText(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').catch(() => undefined);
}

export const ratio = (ours: number, theirs: number) => (theirs === 0 ? NaN : ours / theirs);

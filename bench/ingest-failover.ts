/**
 * The backup encoder: how fast viewers get the other encoder when the one on
 * air is SIGKILLed, and what a standby encoder costs the ingest.
 * - Failover: two publishers (a pre-encoded clip copied in a loop each, 360p25
 *   and 270p30, a keyframe every second) into one ingest (this process, callback
 *   mode with a local callback naming the role, 1 s segments, HLS into a folder,
 *   which is what the media server serves the viewer); the one on air is killed,
 *   and the time until the live playlist names the other's first segment (after
 *   the new `#EXT-X-DISCONTINUITY`) is measured; the killed one comes back as
 *   standby, and the next switch kills the other. Median and p90 over SWITCHES,
 *   and the largest gap between new segments in the playlist over the run.
 * - CPU: the ingest's CPU (this process and its ffmpeg packagers) per wall-clock
 *   second with one encoder, then with both connected (one on air, one standby),
 *   WINDOW s each: the ratio says what a standby costs.
 *   npm run bench -- ingest-failover          (SWITCHES=10, WINDOW=20)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { folderStore, startIngestServer, createLogger } from '../ingest-container/src/index';
import { livePlaylistName } from '../recording/recording';
import { benchmark } from './lib/cleanup';
import { median, percentile, table } from './lib/stats';
import { makeClip, packagerCpuSeconds, readText, removeTempDirs, sleep, startPublisher, tempDir } from './lib/ingest-support';

const SWITCHES = Number(process.env.SWITCHES || 10);
const WINDOW_S = Number(process.env.WINDOW || 20);
const TOKENS = { primary: 'p', backup: 'b' } as const;
type Role = keyof typeof TOKENS;

/** The platform's callback, reduced to what the failover needs: the token names the encoder. */
async function startRoleCallback(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const token = (JSON.parse(body) as { token: string }).token;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, role: token === TOKENS.backup ? 'backup' : 'primary' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const segmentsOf = (playlist: string) => playlist.split('\n').filter((line) => line && !line.startsWith('#'));
const discontinuities = (playlist: string) => playlist.split('#EXT-X-DISCONTINUITY\n').length - 1;
const kill = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGKILL'))));

/** Polls the playlist every 20 ms, noting when each segment first appeared. */
function follow(path: string) {
  const firstSeen = new Map<string, number>();
  let latest = '';
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      latest = (await readText(path)) ?? latest;
      for (const uri of segmentsOf(latest)) if (!firstSeen.has(uri)) firstSeen.set(uri, Date.now());
      await sleep(20);
    }
  })();
  return {
    latest: () => latest,
    largestGap: () => {
      const times = [...firstSeen.values()].sort((a, b) => a - b);
      return times.slice(1).reduce((max, at, i) => Math.max(max, at - times[i]!), 0);
    },
    stop: async () => ((stopped = true), await loop),
  };
}

async function untilSwitched(watch: ReturnType<typeof follow>, before: number, since: number): Promise<number> {
  for (;;) {
    const playlist = watch.latest();
    const after = playlist.split('#EXT-X-DISCONTINUITY\n').at(-1) ?? '';
    if (discontinuities(playlist) > before && segmentsOf(after).length > 0) return Date.now() - since;
    if (Date.now() - since > 30_000) throw new Error('no switch within 30 s');
    await sleep(10);
  }
}

await benchmark(async (defer) => {
  defer(removeTempDirs);
  const dir = await tempDir('failover');
  const clips = await tempDir('failover-clips');
  const clip = { primary: makeClip(clips, 10, { height: 360, fps: 25, gop: 25 }), backup: makeClip(clips, 10, { height: 270, fps: 30, gop: 30 }) };
  const callback = await startRoleCallback();
  defer(callback.close);
  const server = await startIngestServer({
    listen: { host: '127.0.0.1', port: 0 },
    auth: { mode: 'callback', url: callback.url, timeoutMs: 5_000 },
    hls: { store: folderStore(dir), ffmpegPath: process.env.FFMPEG_PATH || 'ffmpeg', segmentSeconds: 1, ladder: [] },
    log: createLogger('error'),
  });
  defer(() => server.close());
  const stream = `failover${Date.now().toString(36)}`;
  const publishers = new Map<Role, ChildProcess>();
  const start = (role: Role) => publishers.set(role, startPublisher(`${server.url}/live/${stream}?token=${TOKENS[role]}`, { file: clip[role] }));
  const cpu = async () => (process.cpuUsage().user + process.cpuUsage().system) / 1e6 + (await packagerCpuSeconds());
  const cpuShare = async () => {
    const [before, started] = [await cpu(), performance.now()];
    await sleep(WINDOW_S * 1000);
    return (await cpu() - before) / ((performance.now() - started) / 1000);
  };

  start('primary');
  await sleep(8_000);
  const one = await cpuShare();
  start('backup');
  await sleep(4_000);
  const both = await cpuShare();

  const watch = follow(join(dir, 'streams', stream, livePlaylistName('index.m3u8', 1)));
  const switches: number[] = [];
  let onAir: Role = 'primary';
  for (let i = 0; i < SWITCHES; i++) {
    const before = discontinuities(watch.latest());
    const killedAt = Date.now();
    await kill(publishers.get(onAir)!);
    switches.push(await untilSwitched(watch, before, killedAt));
    const killed = onAir;
    onAir = onAir === 'primary' ? 'backup' : 'primary';
    start(killed);
    // Back as standby, sending for a while before the next switch.
    await sleep(5_000);
    process.stderr.write('.');
  }
  process.stderr.write('\n');
  await watch.stop();
  for (const child of publishers.values()) await kill(child);
  const sorted = [...switches].sort((a, b) => a - b);
  console.log(`SIGKILL of the encoder on air → the other's first segment in the live playlist, ${SWITCHES} switches, 1 s segments\n`);
  console.log(table([{ 'median ms': median(switches), 'p90 ms': percentile(sorted, 90), 'max ms': sorted.at(-1)!, 'largest gap between new segments ms': watch.largestGap() }]));
  console.log(`\nIngest CPU (this process + packagers), ${WINDOW_S} s windows\n`);
  console.log(table([{ 'one encoder, % of a core': one * 100, 'both encoders (one standby), % of a core': both * 100, ratio: both / one }]));
});

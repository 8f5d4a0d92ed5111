/**
 * How many concurrent 2 Mbit/s publishers one instance packages to HLS in
 * real time on this machine: N publishers (ffmpeg copying a pre-encoded
 * 2 Mbit/s clip in a loop, so they cost little CPU themselves) for N = 1, 2,
 * 4, … up to MAX; a stream falls behind when, over the measuring window, its
 * segments cover less than 90 % of the wall-clock time (its lag grows). The
 * first N where any stream falls behind ends the ramp. The same for
 * nginx-rtmp (HLS on, 2 s fragments), in the same run. Both write to a folder
 * (the embedded S3 would run inside our process and cost us CPU nginx does
 * not pay). Both reported with the CPU their own processes used. Bounded: MAX ≤ 48 publishers, ~20 s per step; loopback only.
 *   npx tsx bench/ingest-capacity.ts        (MAX=48 by default)
 */
import { table } from './lib/stats';
import { makeClip, readText, ratio, sleep, startNginx, startOurs, startPublisher, stopProcess, removeTempDirs, tempDir, type BenchServer } from './lib/ingest-support';
import { benchmark } from './lib/cleanup';

const MAX = Math.min(Number(process.env.MAX || 48), 48);
const STEPS = [1, 4, 8, 16, 32, 48].filter((n) => n <= MAX);
const WARMUP_MS = 6_000;
const WINDOW_MS = 14_000;
const KEEPING_UP = 0.9;

/** Media seconds listed so far: media sequence × target + the durations listed (segments leave a sliding playlist). */
function mediaSeconds(playlist: string, seen: Map<string, number>): number {
  for (const match of playlist.matchAll(/#EXTINF:([\d.]+),?\s*\n(\S+)/g)) seen.set(match[2]!, Number(match[1]));
  let total = 0;
  for (const duration of seen.values()) total += duration;
  return total;
}

async function step(server: BenchServer, clip: string, publishers: number) {
  const streams = Array.from({ length: publishers }, (_, i) => `cap${publishers}n${i}x${Date.now().toString(36)}`);
  const children = streams.map((stream) => startPublisher(`${server.url}/${stream}`, { file: clip }));
  const seen = streams.map(() => new Map<string, number>());
  const sample = async () =>
    Promise.all(streams.map(async (stream, i) => mediaSeconds((await readText(server.playlistPath(stream))) ?? '', seen[i]!)));
  try {
    await sleep(WARMUP_MS);
    const startMedia = await sample();
    const cpuBefore = await server.cpuSeconds();
    const started = performance.now();
    // Sample through the window so no segment slides out of the playlist unseen.
    while (performance.now() - started < WINDOW_MS) {
      await sleep(500);
      await sample();
    }
    const endMedia = await sample();
    const wall = (performance.now() - started) / 1000;
    const cpuAfter = await server.cpuSeconds();
    const rates = endMedia.map((end, i) => (end - startMedia[i]!) / wall);
    // Share of one core used by the server's processes over the window.
    const cpu = (cpuAfter - cpuBefore) / wall;
    return { worst: Math.min(...rates), mean: rates.reduce((a, b) => a + b, 0) / rates.length, cpu };
  } finally {
    await Promise.all(children.map(stopProcess));
  }
}

async function ramp(server: BenchServer, clip: string) {
  const results: { publishers: number; worst: number; mean: number; cpu: number }[] = [];
  for (const publishers of STEPS) {
    const result = await step(server, clip, publishers);
    results.push({ publishers, ...result });
    process.stderr.write(`${server.name}: ${publishers} publishers, worst stream at ${(result.worst * 100).toFixed(0)} % of real time\n`);
    if (result.worst < KEEPING_UP) break;
  }
  await server.close();
  const held = results.filter((r) => r.worst >= KEEPING_UP).map((r) => r.publishers);
  return { results, held: held.length ? Math.max(...held) : 0, stoppedAtCap: results.at(-1)!.worst >= KEEPING_UP };
}

async function main() {
  const work = await tempDir('capacity');
  process.stderr.write('encoding a 2 Mbit/s clip…\n');
  const clip = makeClip(work);

  const oursDir = await tempDir('cap-ours');
  const ours = await ramp(await startOurs({ hlsDir: oursDir }), clip);
  const theirs = await ramp(await startNginx({ hlsDir: await tempDir('cap-nginx') }), clip);

  const rows = STEPS.map((publishers) => {
    const o = ours.results.find((r) => r.publishers === publishers);
    const n = theirs.results.find((r) => r.publishers === publishers);
    const pct = (value: number | undefined) => (value === undefined ? '-' : `${(value * 100).toFixed(0)} %`);
    return {
      publishers,
      'stagedoor worst': pct(o?.worst),
      'stagedoor CPU': pct(o?.cpu),
      'nginx worst': pct(n?.worst),
      'nginx CPU': pct(n?.cpu),
    };
  }).filter((row) => row['stagedoor worst'] !== '-' || row['nginx worst'] !== '-');

  console.log(`Concurrent 2 Mbit/s publishers packaged in real time (worst stream: media seconds per wall second over ${WINDOW_MS / 1000} s;`);
  console.log('CPU: the server\'s own processes, in % of one core (ours: node + its ffmpeg packagers; nginx: master + worker))\n');
  console.log(table(rows));
  const held = (r: typeof ours) => `${r.held}${r.stoppedAtCap ? ` (cap ${MAX} reached, limit not found)` : ''}`;
  console.log(`\npublishers held: stagedoor ${held(ours)}, nginx-rtmp ${held(theirs)}`);
  console.log(`ratio stagedoor/nginx (publishers held): ${ratio(ours.held, theirs.held).toFixed(2)}`);
  const top = (r: typeof ours) => r.results.find((x) => x.publishers === Math.min(ours.held, theirs.held))?.cpu ?? NaN;
  console.log(`ratio stagedoor/nginx (server CPU at ${Math.min(ours.held, theirs.held)} publishers): ${ratio(top(ours), top(theirs)).toFixed(2)}`);
}

await benchmark(async (defer) => {
  defer(removeTempDirs);
  await main();
});

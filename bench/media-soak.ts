/**
 * Memory of `npm start` during a show: one publisher (1 s segments at about
 * 2.5 Mbit/s, copied from a looped clip) and 100 viewers polling their
 * header-less playback URLs, with the disk mirror on (a DATA_DIR, as `npm
 * start` uses by default). Samples the resident memory of the process tree
 * (the program and its ffmpeg) every 10 s and reports the growth in MB per
 * minute after a warm-up (a least-squares line through the samples), and the
 * resident memory at each minute. `SOAK_MINUTES` (default 10) sets the length;
 * `SOAK_HEAP_SNAPSHOTS=<dir>` also writes heap snapshots of the program after the
 * warm-up and at the end (compare them in Chromium's DevTools, Memory tab).
 * Run: npx tsx bench/media-soak.ts
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, call } from '../harness/http';
import { startLocalSystem } from '../harness/local-system';
import { benchmark } from './lib/cleanup';
import { makeClip, readText, sleep, startPublisher, stopProcess } from './lib/ingest-support';
import { table } from './lib/stats';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
/** Past the fill of the media server's segment cache (64 MB: about 3.5 minutes of 2.5 Mbit/s), which is bounded. */
const WARM_UP_MINUTES = 4;
const VIEWERS = 100;
const SAMPLE_MS = 10_000;
const SNAPSHOTS = process.env.SOAK_HEAP_SNAPSHOTS;

/** Resident memory (MB) of a process and all its descendants, from /proc. */
async function treeRssMb(root: number): Promise<number> {
  const parents = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readText(`/proc/${entry}/status`);
    if (!status) continue;
    parents.set(Number(entry), Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0));
    rss.set(Number(entry), Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0));
  }
  const inTree = (pid: number): boolean => pid === root || (pid > 1 && parents.has(pid) && inTree(parents.get(pid)!));
  let kb = 0;
  for (const [pid, value] of rss) if (inTree(pid)) kb += value;
  return kb / 1024;
}

/** Slope (per minute) of the least-squares line through `[minute, value]` points. */
function slopePerMinute(points: [number, number][]): number {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? NaN : sxy / sxx;
}

/** A viewer as a header-less player: the playlists and every new segment, about once a second. */
async function watch(playbackUrl: string, until: number, counts: { segments: number; failures: number }): Promise<void> {
  const fetched = new Set<string>();
  const get = async (url: string) => {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${response.status}`);
    return response;
  };
  while (Date.now() < until) {
    try {
      const entry = await (await get(playbackUrl)).text();
      const variant = new URL(entry.split('\n').find((line) => line && !line.startsWith('#')) ?? '', playbackUrl).href;
      const playlist = variant.endsWith('.m3u8') ? await (await get(variant)).text() : entry;
      const base = variant.endsWith('.m3u8') ? variant : playbackUrl;
      for (const line of playlist.split('\n').filter((l) => l && !l.startsWith('#')).slice(-3)) {
        const url = new URL(line, base).href;
        if (fetched.has(line)) continue;
        fetched.add(line);
        await (await get(url)).arrayBuffer();
        counts.segments++;
      }
    } catch {
      counts.failures++;
    }
    await sleep(1_000);
  }
}

await benchmark(async (defer) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'stagedoor-soak-'));
  defer(() => rm(dataDir, { recursive: true, force: true }));
  const clip = makeClip(dataDir, 12, { videoKbps: 2_400, gop: 30 });
  const system = await startLocalSystem({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    ...(SNAPSHOTS ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${SNAPSHOTS}`.trim() } : {}),
  });
  defer(() => system.stop());
  const now = Date.now();
  const event = await system.admin('POST', '/api/admin/events', {
    title: 'Soak',
    startsAt: new Date(now - 60_000).toISOString(),
    endsAt: new Date(now + 6 * 3_600_000).toISOString(),
  });
  const details = await system.admin('GET', `/api/admin/events/${event.id}`);
  const publisher = startPublisher(`${details.ingest.server}/${details.ingest.streamKey}`, { file: clip });
  defer(() => stopProcess(publisher));
  const { tokens } = await system.admin('POST', `/api/admin/events/${event.id}/tokens`, { count: VIEWERS, label: 'soak' });
  const sessions = await Promise.all(
    tokens.map(async ({ code }: { code: string }, i: number) => {
      const grant = await call('POST', `${system.urls.api}/api/tokens/validate`, { json: { code }, from: `127.0.20.${i + 1}` });
      if (grant.status !== 200) throw new Error(`validate: ${grant.status} ${grant.text}`);
      const long = await call('POST', `${system.urls.api}/api/playback/url`, { headers: bearer(grant.body.playbackToken) });
      if (long.status !== 200) throw new Error(`playback url: ${long.status} ${long.text}`);
      return { jwt: grant.body.playbackToken as string, url: long.body.playbackUrl as string };
    }),
  );

  const startedAt = Date.now();
  const until = startedAt + MINUTES * 60_000;
  const counts = { segments: 0, failures: 0 };
  const viewers = sessions.map((session) => watch(session.url, until, counts));
  // Heartbeats keep the sessions (and so their URLs) alive, as the viewers' pages would.
  const heartbeats = setInterval(() => {
    for (const session of sessions) void call('POST', `${system.urls.api}/api/playback/heartbeat`, { headers: bearer(session.jwt) });
  }, 30_000);
  defer(() => clearInterval(heartbeats));

  const samples: [number, number][] = [];
  let snapshotAfterWarmUp = !!SNAPSHOTS;
  while (Date.now() < until) {
    await sleep(SAMPLE_MS);
    const minute = (Date.now() - startedAt) / 60_000;
    samples.push([minute, await treeRssMb(system.pid)]);
    if (snapshotAfterWarmUp && minute >= WARM_UP_MINUTES) {
      snapshotAfterWarmUp = false;
      process.kill(system.pid, 'SIGUSR2');
    }
  }
  await Promise.all(viewers);
  if (SNAPSHOTS) {
    process.kill(system.pid, 'SIGUSR2');
    await sleep(10_000);
  }
  const health = await (await fetch(`${system.urls.media}/health`)).json();
  const measured = samples.filter(([minute]) => minute >= WARM_UP_MINUTES);
  console.log(
    table([
      {
        minutes: MINUTES,
        viewers: VIEWERS,
        'segments served': counts.segments,
        'failed polls': counts.failures,
        'RSS after warm-up MB': measured[0]?.[1] ?? NaN,
        'RSS at end MB': samples.at(-1)?.[1] ?? NaN,
        'growth MB/min': slopePerMinute(measured),
        'deny entries': health.revocationCacheSize,
      },
    ]),
  );
  const perMinute = samples.filter(([minute], i) => Math.floor(minute) !== Math.floor(samples[i - 1]?.[0] ?? -1));
  console.log(`RSS by minute (MB): ${perMinute.map(([minute, mb]) => `${Math.floor(minute)}: ${Math.round(mb)}`).join(', ')}`);
  if (SNAPSHOTS) console.log(`heap snapshots in ${SNAPSHOTS}`);
});

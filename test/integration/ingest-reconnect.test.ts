/**
 * The end of a show: a publisher that stops cleanly (ffmpeg's normal exit
 * sends FCUnpublish and deleteStream, as OBS's "Stop Streaming" does) ends it
 * at once; one whose connection drops keeps the show open for the reconnect
 * window, and coming back from the same address continues it (one HLS job,
 * one lease taken at the first publish and released once at the end); coming
 * back with other encoder settings continues it in a new part of the recording.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { folderStore, startIngestServer, type IngestServer } from '../../ingest-container/src/index';
import { parseMediaPlaylist } from '../../recording/media-playlist';
import { ffprobe, httpServer, livePlaylist, logRecorder, publish, run, tempDir, uniqueName, until, type TestHttpServer } from '../support/ingest';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(recorder: ReturnType<typeof logRecorder>, hlsDir: string): Promise<{ server: IngestServer; platform: TestHttpServer }> {
  const platform = await httpServer((_b, _q, res) => res.end('{}'));
  cleanups.push(() => platform.close());
  const ingest = await startIngestServer({
    listen: { host: '127.0.0.1', port: 0 },
    auth: { mode: 'none' },
    hls: { store: folderStore(hlsDir), ffmpegPath: 'ffmpeg', segmentSeconds: 1, ladder: [] },
    platform: { apiUrl: platform.url, apiKey: 'k' },
    publishGraceMs: 60_000,
    log: recorder.log,
  });
  cleanups.push(() => ingest.close());
  return { server: ingest, platform };
}

/** Lease calls only; the publisher's measured video goes to the platform too (…/video). */
const leaseCalls = (platform: TestHttpServer) => platform.requests.filter((r) => r.path.endsWith('/lease'));

it('a clean stop ends the show at once, without the reconnect window', async () => {
  const recorder = logRecorder();
  const hlsDir = await tempDir('clean-stop');
  const { server: ingest, platform } = await server(recorder, hlsDir);
  const name = uniqueName('c');
  expect((await publish(`${ingest.url}/live/${name}`, 3).done).code).toBe(0);
  // The reconnect window is 60 s: only the publisher's own stop can end it before the test times out.
  await recorder.waitFor((e) => e.msg === 'publish stopped by the publisher');
  await recorder.waitFor((e) => e.msg === 'publication ended');
  const notices = await until(() => (leaseCalls(platform).at(-1)?.body?.action === 'release' ? leaseCalls(platform) : undefined));
  expect(notices[0]!.body.action).toBe('acquire');
  expect(notices.filter((n) => n.body.action === 'release')).toHaveLength(1);
  const playlist = await readFile(join(hlsDir, 'streams', name, 'index.m3u8'), 'utf8');
  expect(playlist).toContain('#EXT-X-PLAYLIST-TYPE:VOD');
  expect(playlist).toMatch(/#EXT-X-ENDLIST\s*$/);
});

it('a reconnect within the window after a dropped connection continues the show', async () => {
  const recorder = logRecorder();
  const hlsDir = await tempDir('resume');
  const { server: ingest, platform } = await server(recorder, hlsDir);
  const name = uniqueName('g');
  const url = `${ingest.url}/live/${name}`;
  const first = publish(url);
  cleanups.push(() => first.kill());
  await until(async () => /#EXTINF/.test((await livePlaylist(join(hlsDir, 'streams', name))) ?? ''));
  await first.kill();
  expect((await publish(url, 2).done).code).toBe(0);
  await recorder.waitFor((e) => e.msg === 'publish resumed');
  await recorder.waitFor((e) => e.msg === 'publication ended');
  expect(recorder.entries.filter((e) => e.msg === 'hls packaging started')).toHaveLength(1);

  const playlist = await readFile(join(hlsDir, 'streams', name, 'index.m3u8'), 'utf8');
  expect(playlist).toMatch(/#EXT-X-ENDLIST\s*$/);
  // One publish, resumed: one run of segments, no break.
  expect(playlist).not.toContain('#EXT-X-DISCONTINUITY');
  const media = [...playlist.matchAll(/#EXTINF:([\d.]+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  expect(media).toBeGreaterThan(2);
  const notices = await until(() => (leaseCalls(platform).at(-1)?.body?.action === 'release' ? leaseCalls(platform) : undefined));
  expect(notices[0]!.body.action).toBe('acquire');
  expect(notices.filter((n) => n.body.action === 'release')).toHaveLength(1);
});

/** The publisher's video as the ingest reported it to the platform (for the event page), in order. */
const videoReports = (platform: TestHttpServer) => platform.requests.filter((r) => r.path.endsWith('/video')).map((r) => r.body);

/**
 * Publishes with veryfast at 320x240 (keyframes every `first.gop` frames, 25 by default) until the live playlist has
 * three segments and, with `first.reencodingReported`, the platform was told the video is re-encoded; drops the connection
 * (SIGKILL), and comes back from the same address within the window with `resumed` (another preset and frame size, as
 * a restarted OBS with another profile does) for 5 s, which then stops cleanly.
 */
async function resumeWithOtherSettings(resumed: { gop?: number; keyframesAt?: string }, first: { gop?: number; reencodingReported?: boolean } = {}) {
  const recorder = logRecorder();
  const hlsDir = await tempDir('resume-settings');
  const { server: ingest, platform } = await server(recorder, hlsDir);
  const name = uniqueName('s');
  const url = `${ingest.url}/live/${name}`;
  const stream = join(hlsDir, 'streams', name);
  const startedAt = Date.now();
  const firstPublish = publish(url, undefined, { preset: 'veryfast', gop: first.gop ?? 25 });
  cleanups.push(() => firstPublish.kill());
  if (first.reencodingReported) await until(() => videoReports(platform).some((report) => report.reencoding));
  const before = await until(async () => {
    const text = await livePlaylist(stream);
    return text && parseMediaPlaylist(text).length >= 3 ? text : undefined;
  });
  await firstPublish.kill();
  const firstSeconds = (Date.now() - startedAt) / 1000;
  const second = publish(url, 5, { preset: 'ultrafast', size: '480x360', ...resumed });
  cleanups.push(() => second.kill());
  // While on air, index.m3u8 names the live playlist: the last one it named is the one viewers were on.
  let liveName: string | undefined;
  while (second.running()) {
    const master = await readFile(join(stream, 'index.m3u8'), 'utf8').catch(() => '');
    if (master.includes('#EXT-X-STREAM-INF')) liveName = master.split('\n').find((line) => line.endsWith('.m3u8'));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect((await second.done).code).toBe(0);
  await recorder.waitFor((e) => e.msg === 'publication ended');
  expect(recorder.entries.some((e) => e.msg === 'publish resumed')).toBe(true);
  return {
    stream,
    before,
    firstSeconds,
    live: await readFile(join(stream, liveName!), 'utf8'),
    vod: await readFile(join(stream, 'index.m3u8'), 'utf8'),
    parts: await readdir(join(hlsDir, 'recordings', name)),
    logs: recorder.entries,
    platform,
  };
}

const mediaSequence = (playlist: string) => Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(playlist)?.[1]);
const seconds = (segments: { duration: number }[]) => segments.reduce((sum, s) => sum + s.duration, 0);
/** The segments before and after the playlist's only discontinuity. */
function splitAtDiscontinuity(playlist: string) {
  const pieces = playlist.split('#EXT-X-DISCONTINUITY\n');
  expect(pieces).toHaveLength(2);
  return { old: parseMediaPlaylist(pieces[0]!), resumed: parseMediaPlaylist(pieces[1]!) };
}

/** Decodes a segment completely: what ffmpeg complains about, and the picture size. */
async function decode(file: string): Promise<{ errors: string; size: string }> {
  const { stderr } = await run('ffmpeg', ['-hide_banner', '-v', 'error', '-i', file, '-f', 'null', '-']).done;
  const probe = await ffprobe(['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0:s=x', file]);
  // ffprobe lists an MPEG-TS stream once under its program and once on its own.
  return { errors: stderr.trim(), size: probe.stdout.trim().split('\n')[0]! };
}

async function expectNewPartDecodes(show: Awaited<ReturnType<typeof resumeWithOtherSettings>>) {
  // The live playlist: the segments before the drop as they were (same media sequence), one discontinuity, the new part.
  const live = splitAtDiscontinuity(show.live);
  expect(mediaSequence(show.live)).toBe(mediaSequence(show.before));
  expect(live.old.slice(0, parseMediaPlaylist(show.before).length)).toEqual(parseMediaPlaylist(show.before));
  expect(live.resumed.length).toBeGreaterThanOrEqual(2);
  // The recording: two parts, and every segment decodes cleanly at its own encoder's size.
  expect(show.parts).toHaveLength(2);
  const vod = splitAtDiscontinuity(show.vod);
  for (const segment of vod.old) expect({ segment: segment.uri, ...(await decode(join(show.stream, segment.uri))) }).toEqual({ segment: segment.uri, errors: '', size: '320x240' });
  for (const segment of vod.resumed) expect({ segment: segment.uri, ...(await decode(join(show.stream, segment.uri))) }).toEqual({ segment: segment.uri, errors: '', size: '480x360' });
  // Durations: the new part is the 5 s the second encoder sent; the first part at least what was live before the drop.
  expect(seconds(vod.resumed)).toBeGreaterThan(4.5);
  expect(seconds(vod.resumed)).toBeLessThan(5.5);
  expect(seconds(vod.old)).toBeGreaterThanOrEqual(seconds(parseMediaPlaylist(show.before)) - 0.01);
  expect(seconds(vod.old)).toBeLessThan(show.firstSeconds);
  return vod;
}

it('a reconnect with other encoder settings continues the show in a new part, after a discontinuity', async () => {
  const show = await resumeWithOtherSettings({ gop: 25 });
  const vod = await expectNewPartDecodes(show);
  // Keyframes every second in both parts: both copied.
  expect(show.logs.some((e) => e.msg.startsWith('hls re-encoding'))).toBe(false);
  expect(Math.max(...vod.resumed.slice(0, -1).map((s) => s.duration))).toBeLessThan(1.5);
}, 60_000);

it('the keyframe judge decides again for the new part: keyframes 4 s apart after the reconnect are re-encoded', async () => {
  const show = await resumeWithOtherSettings({ gop: 100 });
  const vod = await expectNewPartDecodes(show);
  const reencoding = show.logs.filter((e) => e.msg.startsWith('hls re-encoding'));
  expect(reencoding).toHaveLength(1);
  expect(reencoding[0]!.publish_id).not.toBe(show.logs.find((e) => e.msg === 'hls packaging started')!.publish_id);
  expect(Math.max(...vod.resumed.slice(0, -1).map((s) => s.duration))).toBeLessThan(1.5);
}, 60_000);

it('after a re-encoded part, a copied one is reported as copied, with its own keyframe interval (the event page follows the part on air)', async () => {
  const show = await resumeWithOtherSettings({ gop: 25 }, { gop: 100, reencodingReported: true });
  await expectNewPartDecodes(show);
  expect(videoReports(show.platform).find((report) => report.reencoding)).toMatchObject({ keyframeIntervalSeconds: 4 });
  // The second encoder's 1 s keyframes, copied: the report says so, and never pairs the first encoder's 4 s with copying.
  const copied = await until(() => videoReports(show.platform).find((report) => !report.reencoding));
  expect(copied).toMatchObject({ keyframeIntervalSeconds: 1, reencoding: false });
  expect(videoReports(show.platform).at(-1)).toMatchObject({ keyframeIntervalSeconds: 1, reencoding: false });
}, 60_000);

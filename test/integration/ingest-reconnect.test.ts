/**
 * The end of a show: a publisher that stops cleanly (ffmpeg's normal exit
 * sends FCUnpublish and deleteStream, as OBS's "Stop Streaming" does) ends it
 * at once; one whose connection drops keeps the show open for the reconnect
 * window, and coming back from the same address continues it (one HLS job,
 * one lease taken at the first publish and released once at the end).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { folderStore, startIngestServer, type IngestServer } from '../../ingest-container/src/index';
import { httpServer, livePlaylist, logRecorder, publish, tempDir, uniqueName, until, type TestHttpServer } from '../support/ingest';

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

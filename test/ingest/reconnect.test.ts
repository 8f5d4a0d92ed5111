/**
 * The publish grace window: a publisher that drops and comes back from the
 * same address continues the same stream (one HLS job, one playlist, the
 * platform told live once); the stream ends when the server stops.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { folderStore, startIngestServer } from '../../ingest-container/src/index';
import { httpServer, logRecorder, publish, tempDir, uniqueName, until } from './helpers';

it('a reconnect within the grace window continues the stream', async () => {
  const recorder = logRecorder();
  const platform = await httpServer((_b, _q, res) => res.end('{}'));
  const hlsDir = await tempDir('resume');
  const server = await startIngestServer({
    listen: { host: '127.0.0.1', port: 0 },
    auth: { mode: 'none' },
    hls: { store: folderStore(hlsDir), ffmpegPath: 'ffmpeg', segmentSeconds: 1, listSize: 20, ladder: [] },
    platform: { apiUrl: platform.url, apiKey: 'k' },
    publishGraceMs: 60_000,
    log: recorder.log,
  });
  try {
    const name = uniqueName('g');
    const url = `${server.url}/live/${name}`;
    expect((await publish(url, 2).done).code).toBe(0);
    expect((await publish(url, 2).done).code).toBe(0);
    await recorder.waitFor((e) => e.msg === 'publish resumed');
    expect(recorder.entries.filter((e) => e.msg === 'hls packaging started')).toHaveLength(1);
    expect(recorder.entries.some((e) => e.msg === 'publication ended')).toBe(false);

    await server.close();
    const playlist = await readFile(join(hlsDir, 'streams', name, 'index.m3u8'), 'utf8');
    expect(playlist).toMatch(/#EXT-X-ENDLIST\s*$/);
    const media = [...playlist.matchAll(/#EXTINF:([\d.]+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(media).toBeGreaterThan(3); // both publishes are in the one playlist
    // Live notices only; the publisher's measured video goes to the platform too (…/video).
    const liveNotices = () => platform.requests.filter((r) => r.path.endsWith('/live'));
    const notices = await until(() => (liveNotices().length >= 2 ? liveNotices() : undefined));
    expect(notices.map((r) => r.body)).toEqual([{ live: true }, { live: false }]);
  } finally {
    await server.close();
    await platform.close();
  }
});

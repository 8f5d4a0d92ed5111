/**
 * Storage refuses every write for 30 s mid-show (faults injected between the
 * ingest and its store): segments wait on local disk and go up in order when
 * storage is back, each before any playlist naming it; the final recording has
 * every segment, without a gap.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { referencedFiles } from '../../recording/playlist';
import { folderStore, startIngestServer, type HlsStore } from '../../ingest-container/src/index';
import { livePlaylist, logRecorder, publish, tempDir, uniqueName, until } from '../support/ingest';

const OUTAGE_MS = 30_000;
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function faultyStore(inner: HlsStore) {
  const state = { down: false };
  const stored = new Set<string>();
  const orderProblems: string[] = [];
  const store: HlsStore = {
    location: inner.location,
    get: (key) => inner.get(key),
    list: (prefix) => inner.list(prefix),
    async put(key, object) {
      if (state.down) throw new Error('injected: storage refuses writes');
      if (key.endsWith('.m3u8')) {
        const prefix = key.slice(0, key.lastIndexOf('/') + 1);
        for (const name of referencedFiles(object.body.toString())) if (!stored.has(prefix + name)) orderProblems.push(`${key} names ${name}`);
      }
      await inner.put(key, object);
      stored.add(key);
    },
  };
  return { store, state, orderProblems };
}

it('a 30 s storage outage mid-show loses no segment of the recording', async () => {
  const dir = await tempDir('outage');
  const { store, state, orderProblems } = faultyStore(folderStore(dir));
  const recorder = logRecorder();
  const server = await startIngestServer({
    listen: { host: '127.0.0.1', port: 0 },
    auth: { mode: 'none' },
    hls: { store, ffmpegPath: 'ffmpeg', segmentSeconds: 2, ladder: [] },
    publishGraceMs: 0,
    log: recorder.log,
  });
  cleanups.push(() => server.close());
  const name = uniqueName('o');
  const onAirSeconds = 46;
  const publisher = publish(`${server.url}/live/${name}`, onAirSeconds);
  cleanups.push(() => publisher.kill());
  const playlist = join(dir, 'streams', name, 'index.m3u8');
  await until(async () => /#EXTINF/.test((await livePlaylist(join(dir, 'streams', name))) ?? ''));

  state.down = true;
  await recorder.waitFor((e) => e.msg === 'hls upload failed, retrying');
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
  state.down = false;

  expect((await publisher.done).code).toBe(0);
  await recorder.waitFor((e) => e.msg === 'publication ended');
  const recording = await readFile(playlist, 'utf8');
  expect(recording).toMatch(/#EXT-X-ENDLIST\s*$/);
  // Every segment ffmpeg cut, numbered without a gap, in order.
  const numbers = referencedFiles(recording).map((uri) => Number(/_(\d+)\.ts$/.exec(uri)![1]));
  expect(numbers).toEqual(numbers.map((_, i) => i));
  const seconds = [...recording.matchAll(/#EXTINF:([\d.]+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  expect(seconds).toBeGreaterThanOrEqual(onAirSeconds - 2.5);
  expect(orderProblems).toEqual([]);
  expect(recorder.entries.some((e) => e.msg === 'hls segments not stored, storage kept failing')).toBe(false);
}, 120_000);

it('past the buffer bound, the oldest unstored segments are dropped with an error log and counted in the metrics, and the show still ends', async () => {
  const dir = await tempDir('outage-bound');
  const { store, state } = faultyStore(folderStore(dir));
  const recorder = logRecorder();
  const server = await startIngestServer({
    listen: { host: '127.0.0.1', port: 0 },
    auth: { mode: 'none' },
    hls: { store, ffmpegPath: 'ffmpeg', segmentSeconds: 1, ladder: [], bufferLimitBytes: 64 * 1024 },
    publishGraceMs: 0,
    log: recorder.log,
  });
  cleanups.push(() => server.close());
  const name = uniqueName('b');
  const publisher = publish(`${server.url}/live/${name}`, 14);
  cleanups.push(() => publisher.kill());
  const playlist = join(dir, 'streams', name, 'index.m3u8');
  await until(async () => /#EXTINF/.test((await livePlaylist(join(dir, 'streams', name))) ?? ''));
  state.down = true;
  const dropped = await recorder.waitFor((e) => e.msg.startsWith('hls buffer full'));
  expect(dropped).toMatchObject({ level: 'error', stream_name: name });
  // On a loaded machine segments can pile up past the bound before an upload of the outage has failed.
  await recorder.waitFor((e) => e.msg === 'hls upload failed, retrying');
  state.down = false;
  expect((await publisher.done).code).toBe(0);
  await recorder.waitFor((e) => e.msg === 'publication ended');
  expect(await readFile(playlist, 'utf8')).toMatch(/#EXT-X-ENDLIST\s*$/);
  // The metrics of the minute go out in one line (and once more when the server stops).
  await server.close();
  const lines = recorder.entries.filter((e) => e.msg === 'ingest metrics');
  const total = (name: string) => lines.reduce((sum, e) => sum + Number((e as Record<string, unknown>)[name] ?? 0), 0);
  expect(total('RecordingSegmentsDropped')).toBeGreaterThan(0);
  expect(total('UploadRetries')).toBeGreaterThan(0);
  expect(total('SegmentsUploaded')).toBeGreaterThan(0);
  expect(lines.at(-1)).toMatchObject({ Publishers: 0, _aws: { CloudWatchMetrics: [{ Namespace: 'Stagedoor/Ingest' }] } });
}, 120_000);

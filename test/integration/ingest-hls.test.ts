/**
 * HLS packaging: a folder (-hls-dir) and the embedded S3, each segment stored
 * before the playlist that names it, Content-Type and Cache-Control set, a
 * final playlist with #EXT-X-ENDLIST; the optional adaptive ladder writes a
 * master playlist whose variants are stored first.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmbeddedS3 } from '../../local/embedded-s3';
import { referencedFiles } from '../../recording/playlist';
import { folderStore, s3Store, startIngestServer, type HlsStore } from '../../ingest-container/src/index';
import { ffprobe, logRecorder, publish, tempDir, uniqueName } from '../support/ingest';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Wraps a store and records what was put, in order. */
function recording(store: HlsStore) {
  const puts: { key: string; body: string; contentType: string; cacheControl: string }[] = [];
  const wrapped: HlsStore = {
    location: store.location,
    get: (key) => store.get(key),
    list: (prefix) => store.list(prefix),
    async put(key, object) {
      await store.put(key, object);
      puts.push({ key, body: key.endsWith('.m3u8') ? object.body.toString() : '', contentType: object.contentType, cacheControl: object.cacheControl });
    },
  };
  return { store: wrapped, puts };
}

/** Every playlist put names only segments put before it. */
function expectSegmentsBeforePlaylists(puts: ReturnType<typeof recording>['puts'], prefix: string) {
  const stored = new Set<string>();
  for (const put of puts) {
    if (put.key.endsWith('.m3u8')) for (const name of referencedFiles(put.body).filter((file) => file.endsWith('.ts'))) expect(stored).toContain(prefix + name);
    stored.add(put.key);
  }
}

async function publishOnce(store: HlsStore, name: string, ladder: { height: number; videoKbps: number }[] = []) {
  const recorder = logRecorder();
  const server = await startIngestServer({
    listen: { host: '127.0.0.1', port: 0 },
    auth: { mode: 'none' },
    hls: { store, ffmpegPath: process.env.FFMPEG_PATH || 'ffmpeg', segmentSeconds: 2, ladder },
    publishGraceMs: 0,
    log: recorder.log,
  });
  cleanups.push(() => server.close());
  const result = await publish(`${server.url}/live/${name}`, 5).done;
  expect(result.code).toBe(0);
  await recorder.waitFor((e) => e.msg === 'publication ended');
}

describe('HLS packaging', () => {
  it('writes playlist and segments to a folder, segments first, final playlist ended', async () => {
    const dir = await tempDir('hls');
    const name = uniqueName('h');
    const { store, puts } = recording(folderStore(dir));
    await publishOnce(store, name);

    const prefix = `streams/${name}/`;
    expectSegmentsBeforePlaylists(puts, prefix);
    const playlist = await readFile(join(dir, prefix, 'index.m3u8'), 'utf8');
    expect(playlist).toMatch(/#EXT-X-ENDLIST\s*$/);
    const segments = referencedFiles(playlist);
    expect(segments.length).toBeGreaterThanOrEqual(2);
    // The whole show (VOD) and the live playlist viewers were on, now ended.
    expect((await readdir(join(dir, prefix))).sort()).toEqual(['index-live2.m3u8', 'index.m3u8', ...segments].sort());
    expect(await readFile(join(dir, prefix, 'index-live2.m3u8'), 'utf8')).toMatch(/#EXT-X-TARGETDURATION:2\n[^]*#EXT-X-ENDLIST\s*$/);

    const probe = await ffprobe(['-v', 'error', '-show_entries', 'stream=codec_name', '-of', 'csv=p=0', join(dir, prefix, 'index.m3u8')]);
    // The HLS demuxer lists each stream once per program, hence the set.
    expect([...new Set(probe.stdout.split('\n').filter(Boolean))].sort()).toEqual(['aac', 'h264']);
  });

  it('gives a publisher without audio a live playlist while it is still on air', async () => {
    const recorder = logRecorder();
    const dir = await tempDir('hls-video-only');
    const { store, puts } = recording(folderStore(dir));
    const server = await startIngestServer({
      listen: { host: '127.0.0.1', port: 0 },
      auth: { mode: 'none' },
      hls: { store, ffmpegPath: process.env.FFMPEG_PATH || 'ffmpeg', segmentSeconds: 2, ladder: [] },
      publishGraceMs: 0,
      log: recorder.log,
    });
    cleanups.push(() => server.close());
    const publisher = publish(`${server.url}/live/${uniqueName('v')}`, 60, { audio: false });
    cleanups.push(() => publisher.stop());
    while (!puts.some((put) => put.key.endsWith('.m3u8'))) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(publisher.running()).toBe(true);
  });

  it('uploads to S3 with Content-Type and Cache-Control, segment before playlist', async () => {
    const s3 = await startEmbeddedS3({ buckets: ['media-test'] });
    cleanups.push(() => s3.close());
    const client = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const name = uniqueName('s');
    const { store, puts } = recording(s3Store({ bucket: 'media-test', client }));
    await publishOnce(store, name);

    const prefix = `streams/${name}/`;
    expectSegmentsBeforePlaylists(puts, prefix);
    const get = await client.send(new GetObjectCommand({ Bucket: 'media-test', Key: `${prefix}index.m3u8` }));
    const playlist = await get.Body!.transformToString();
    expect(playlist).toMatch(/#EXT-X-ENDLIST\s*$/);
    expect(get.ContentType).toBe('application/vnd.apple.mpegurl');
    const segment = referencedFiles(playlist)[0]!;
    const head = await client.send(new HeadObjectCommand({ Bucket: 'media-test', Key: prefix + segment }));
    expect(head.ContentType).toBe('video/mp2t');
    expect(head.ContentLength).toBeGreaterThan(0);
    // fauxqs keeps Content-Type but drops Cache-Control, so that one is checked on what was sent.
    expect(puts.find((p) => p.key === `${prefix}index.m3u8`)?.cacheControl).toBe('public, max-age=1');
    expect(puts.find((p) => p.key === prefix + segment)?.cacheControl).toBe('public, max-age=31536000, immutable');
  });

  it('with a ladder, stores a master playlist after the variant playlists it names', async () => {
    const dir = await tempDir('ladder');
    const name = uniqueName('l');
    const { store, puts } = recording(folderStore(dir));
    await publishOnce(store, name, [{ height: 180, videoKbps: 300 }, { height: 120, videoKbps: 150 }]);

    const prefix = `streams/${name}/`;
    expectSegmentsBeforePlaylists(puts, prefix);
    const master = await readFile(join(dir, prefix, 'index.m3u8'), 'utf8');
    expect(master).toContain('#EXT-X-STREAM-INF');
    const variants = referencedFiles(master);
    expect(variants).toEqual(['index_0.m3u8', 'index_1.m3u8']);
    for (const variant of variants) {
      const text = await readFile(join(dir, prefix, variant), 'utf8');
      expect(text).toMatch(/#EXT-X-ENDLIST\s*$/);
      const height = await ffprobe(['-v', 'error', '-select_streams', 'v', '-show_entries', 'stream=height', '-of', 'csv=p=0', join(dir, prefix, variant)]);
      expect(['180', '120']).toContain(height.stdout.split('\n').find(Boolean));
    }
  });
});

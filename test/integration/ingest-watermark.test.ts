/**
 * A watermarked publish (issue 39) through the real ingest and ffmpeg: the publish check's answer
 * carries the pattern's signs, and every segment of every rendition is stored as A (+pattern) and B
 * (−pattern) with the same timestamps, each starting with a keyframe, alike to the eye; the
 * recording index and every playlist name `.w.ts`; a fingerprint per segment sits beside the index;
 * RTMP play of the show is refused (it would relay the unmarked picture).
 */
import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import RtmpClient from 'node-media-server/src/protocol/rtmp_client.js';
import { folderStore, startIngestServer, type HlsStore } from '../../ingest-container/src/index';
import { patternField, patternFromSigns } from '../../recording/watermark-pattern';
import type { PartRecord } from '../../recording/part-record';
import { referencedFiles } from '../../recording/playlist';
import { ffprobe, firstStatus, httpServer, logRecorder, publish, tempDir, uniqueName, until } from '../support/ingest';

const SIGNS = '+-+--+-++-+-';
const ffmpeg = (args: string[]) => promisify(execFile)('ffmpeg', ['-hide_banner', '-nostats', ...args], { encoding: 'buffer', maxBuffer: 64 * 1024 ** 2 });

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Publishes `seconds` of a test pattern to an ingest whose callback says the event is watermarked; resolves with the HLS folder once the show ended. */
async function watermarkedShow(name: string, ladder: { height: number; videoKbps: number }[], seconds = 5) {
  const platform = await httpServer((body, _req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(body.action === 'publish' ? { ok: true, watermark: { signs: SIGNS } } : { ok: true }));
  });
  cleanups.push(() => platform.close());
  const dir = await tempDir('hls-wm');
  const recorder = logRecorder();
  const { store, puts } = keysPut(folderStore(dir));
  const server = await startIngestServer({
    listen: { host: '127.0.0.1', port: 0 },
    auth: { mode: 'callback', url: platform.url, timeoutMs: 2_000 },
    hls: { store, ffmpegPath: 'ffmpeg', segmentSeconds: 1, ladder },
    publishGraceMs: 0,
    log: recorder.log,
  });
  cleanups.push(() => server.close());
  // A player admitted before the publish began waits for it: the watermarked publish cuts it.
  const early = await statuses(`${server.url}/live/${name}?token=t`);
  await until(() => early.seen.includes('NetStream.Play.Start'));
  const publisher = publish(`${server.url}/live/${name}?token=t`, seconds, { size: '640x360' });
  await until(() => early.seen.includes('NetStream.Play.Failed'));
  await recorder.waitFor((e) => e.msg === 'hls watermarking: every rendition encoded twice (A and B)');
  // Play would relay the publisher's unmarked picture.
  expect(await firstStatus(`${server.url}/live/${name}?token=t`, 'play')).toMatchObject({ code: 'NetStream.Play.Failed', level: 'error' });
  expect((await publisher.done).code).toBe(0);
  await recorder.waitFor((e) => e.msg === 'publication ended');
  expectStoredBeforeNamed(puts, `streams/${name}/`);
  return { dir, recorder };
}

/** Wraps a store to record the keys put (and the playlists' text), in order. */
function keysPut(inner: HlsStore) {
  const puts: { key: string; text?: string }[] = [];
  const store: HlsStore = {
    location: inner.location,
    get: (key) => inner.get(key),
    list: (prefix) => inner.list(prefix),
    async put(key, object) {
      await inner.put(key, object);
      puts.push({ key, text: key.endsWith('.m3u8') ? object.body.toString() : undefined });
    },
  };
  return { store, puts };
}

/** Every playlist put names only segments (both versions of a .w.ts) put before it. */
function expectStoredBeforeNamed(puts: ReturnType<typeof keysPut>['puts'], prefix: string) {
  const stored = new Set<string>();
  for (const { key, text } of puts) {
    if (text !== undefined) for (const file of referencedFiles(text).filter((name) => name.endsWith('.ts'))) expect(stored).toContain(prefix + file);
    stored.add(key);
  }
}

/** An RTMP player that stays connected and records every status it gets. */
async function statuses(url: string) {
  const client = new RtmpClient();
  const seen: string[] = [];
  client.onStatusCallback = (code: string) => void seen.push(code);
  client.onCloseCallback = () => undefined;
  await client.connect(url);
  await client.sendConnect();
  await client.sendCreateStream();
  const name = url.slice(url.indexOf('/', url.indexOf('//') + 2) + 1).split('/').slice(1).join('/');
  void client.sendPlay(name).catch(() => undefined);
  cleanups.push(async () => client.disconnect());
  return { seen };
}

async function packets(file: string, stream: 'v' | 'a') {
  const probe = await ffprobe(['-v', 'error', '-select_streams', stream, '-show_entries', 'packet=pts,duration,flags', '-of', 'csv=p=0', file]);
  return probe.stdout.trim().split('\n');
}

async function psnr(a: string, b: string): Promise<number> {
  const { stderr } = await ffmpeg(['-i', a, '-i', b, '-lavfi', '[0:v][1:v]psnr', '-f', 'null', '-']);
  return Number(/PSNR y:([\d.]+)/.exec(stderr.toString())![1]);
}

/** A − B averaged over a segment's frames, at 64 × 36, against the pattern P: A = X + P and B = X − P, so it is 2P. */
async function correlationWithPattern(a: string, b: string): Promise<number> {
  const mean = async (file: string) => {
    const { stdout } = await ffmpeg(['-i', file, '-vf', 'scale=64:36:flags=area,format=gray', '-f', 'rawvideo', 'pipe:1']);
    const frames = stdout.length / (64 * 36);
    const sum = new Float64Array(64 * 36);
    for (let i = 0; i < stdout.length; i++) sum[i % sum.length]! += stdout[i]! / frames;
    return sum;
  };
  const [ma, mb] = [await mean(a), await mean(b)];
  const p = patternField(patternFromSigns(SIGNS)!, 64, 36);
  let dot = 0, dd = 0, pp = 0;
  for (let i = 0; i < p.length; i++) {
    const d = ma[i]! - mb[i]!;
    dot += d * p[i]!;
    dd += d * d;
    pp += p[i]! * p[i]!;
  }
  return dot / Math.sqrt(dd * pp);
}

async function checkVersions(streamDir: string, segment: string) {
  const [a, b] = [join(streamDir, segment.replace(/\.w\.ts$/, '.a.ts')), join(streamDir, segment.replace(/\.w\.ts$/, '.b.ts'))];
  const [va, vb] = [await packets(a, 'v'), await packets(b, 'v')];
  // The same frames at the same timestamps, each version starting with a keyframe.
  expect(va.map((line) => line.split(',').slice(0, 2).join())).toEqual(vb.map((line) => line.split(',').slice(0, 2).join()));
  expect(va[0]).toMatch(/,K/);
  expect(vb[0]).toMatch(/,K/);
  expect(await packets(a, 'a')).toEqual(await packets(b, 'a'));
  const { stdout: audioA } = await ffmpeg(['-i', a, '-map', '0:a', '-c', 'copy', '-f', 'md5', '-']);
  const { stdout: audioB } = await ffmpeg(['-i', b, '-map', '0:a', '-c', 'copy', '-f', 'md5', '-']);
  expect(audioA.toString()).toBe(audioB.toString());
  return { psnr: await psnr(a, b), correlation: await correlationWithPattern(a, b) };
}

describe('a watermarked publish', () => {
  it('stores A and B of every segment, named .w.ts by the index and the playlists, and a fingerprint of each', async () => {
    const name = uniqueName('w');
    const { dir } = await watermarkedShow(name, []);
    const streamDir = join(dir, 'streams', name);

    const indexKeys = (await readdir(join(dir, 'recordings', name))).filter((file) => file.endsWith('.json'));
    expect(indexKeys).toHaveLength(1);
    const part = JSON.parse(await readFile(join(dir, 'recordings', name, indexKeys[0]!), 'utf8')) as PartRecord;
    expect(part.watermark).toEqual({ signs: SIGNS });
    const segments = part.renditions['index.m3u8']!;
    expect(segments.length).toBeGreaterThanOrEqual(4);
    for (const [file] of segments) expect(file).toMatch(new RegExp(`^${part.publishId}_\\d{5}\\.w\\.ts$`));

    // The whole show (VOD) and the live playlist name exactly the index's segments; the folder holds both versions of each.
    for (const playlist of ['index.m3u8', 'index-live1.m3u8']) {
      const text = await readFile(join(streamDir, playlist), 'utf8');
      expect(text.split('\n').filter((line) => line.endsWith('.ts'))).toEqual(segments.map(([file]) => file));
    }
    const vodFiles = referencedFiles(await readFile(join(streamDir, 'index.m3u8'), 'utf8'));
    expect((await readdir(streamDir)).filter((file) => file.endsWith('.ts')).sort()).toEqual([...vodFiles].sort());

    // At the publisher's size, read from its sequence header (the pattern frame has that size).
    const size = await ffprobe(['-v', 'error', '-select_streams', 'v', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', join(streamDir, segments[0]![0].replace('.w.ts', '.a.ts'))]);
    expect(size.stdout.split('\n').find(Boolean)).toBe('640,360');

    const measured: { psnr: number; correlation: number }[] = [];
    for (const [file] of segments) measured.push(await checkVersions(streamDir, file));
    console.log('watermark A/B per segment', JSON.stringify(measured.map((m) => [m.psnr.toFixed(1), m.correlation.toFixed(3)])));
    for (const { psnr: db, correlation } of measured) {
      expect(db).toBeGreaterThan(35);
      // The mark is there, the right way round (A = X + P).
      expect(correlation).toBeGreaterThan(0.8);
    }

    // Fingerprints: 16 × 9 gray bytes at 10 frames/s of each segment.
    const fingerprints = join(dir, 'recordings', name, 'fingerprints');
    expect((await readdir(fingerprints)).sort()).toEqual(segments.map(([file]) => file.replace('.w.ts', '.fp')));
    for (const [file, seconds] of segments) {
      const bytes = (await readFile(join(fingerprints, file.replace('.w.ts', '.fp')))).length;
      expect(bytes % 144).toBe(0);
      expect(Math.abs(bytes / 144 - 10 * seconds)).toBeLessThanOrEqual(1);
    }
  });

  it('with a ladder, marks every rendition (the rendition after the number) and fingerprints the lowest', async () => {
    const name = uniqueName('wl');
    const { dir } = await watermarkedShow(name, [{ height: 360, videoKbps: 800 }, { height: 180, videoKbps: 300 }], 4);
    const streamDir = join(dir, 'streams', name);
    const [indexKey] = (await readdir(join(dir, 'recordings', name))).filter((file) => file.endsWith('.json'));
    const part = JSON.parse(await readFile(join(dir, 'recordings', name, indexKey!), 'utf8')) as PartRecord;
    expect(Object.keys(part.renditions).sort()).toEqual(['index_0.m3u8', 'index_1.m3u8']);
    expect(referencedFiles(await readFile(join(streamDir, 'index.m3u8'), 'utf8'))).toEqual(['index_0.m3u8', 'index_1.m3u8']);
    for (const [v, rendition] of ['index_0.m3u8', 'index_1.m3u8'].entries()) {
      const segments = part.renditions[rendition]!;
      for (const [file] of segments) expect(file).toMatch(new RegExp(`_\\d{5}\\.${v}\\.w\\.ts$`));
      const { psnr: db } = await checkVersions(streamDir, segments[1]![0]);
      expect(db).toBeGreaterThan(35);
      const text = await readFile(join(streamDir, rendition), 'utf8');
      expect(text.split('\n').filter((line) => line.endsWith('.ts'))).toEqual(segments.map(([file]) => file));
    }
    const height = await ffprobe(['-v', 'error', '-select_streams', 'v', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', join(streamDir, part.renditions['index_1.m3u8']![0]![0].replace('.w.ts', '.b.ts'))]);
    // The MPEG-TS demuxer lists the stream once per program.
    expect(height.stdout.split('\n').find(Boolean)).toBe('320,180');
    const fingerprints = await readdir(join(dir, 'recordings', name, 'fingerprints'));
    expect(fingerprints.sort()).toEqual(part.renditions['index_1.m3u8']!.map(([file]) => file.replace('.1.w.ts', '.fp')));
  });
});

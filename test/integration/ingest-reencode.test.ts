/**
 * Keyframes the segment length cannot be cut at: the ingest re-encodes (by
 * default) so segments and the live playlist's target duration stay the
 * segment length; a publisher with the right keyframes is copied, its long
 * first GOP left out of the live playlist; `reencode: 'off'` copies whatever
 * comes. Real ffmpeg publishers, a folder store, 1 s segments.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseMediaPlaylist } from '../../recording/media-playlist';
import { folderStore, startIngestServer } from '../../ingest-container/src/index';
import { ffprobe, logRecorder, publish, tempDir, uniqueName } from '../support/ingest';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Published {
  dir: string;
  /** The live playlist `index.m3u8` named, as it ended. */
  live: string;
  /** The whole show, VOD. */
  vod: string;
  logs: Record<string, any>[];
  parts: string[];
}

/** Publishes `seconds` of ffmpeg's test pattern with the given keyframes and waits for the end of the show. */
async function publishOnce(keyframes: { gop?: number; keyframesAt?: string }, reencode: 'auto' | 'off', seconds = 10): Promise<Published> {
  const recorder = logRecorder();
  const dir = await tempDir('reencode');
  const name = uniqueName('k');
  const server = await startIngestServer({
    listen: { host: '127.0.0.1', port: 0 },
    auth: { mode: 'none' },
    hls: { store: folderStore(dir), ffmpegPath: process.env.FFMPEG_PATH || 'ffmpeg', segmentSeconds: 1, ladder: [], reencode },
    publishGraceMs: 0,
    log: recorder.log,
  });
  cleanups.push(() => server.close());
  const stream = join(dir, 'streams', name);
  const publisher = publish(`${server.url}/live/${name}`, seconds, keyframes);
  // While on air, index.m3u8 is the multivariant playlist naming the live one: the last one it named.
  let liveName: string | undefined;
  while (publisher.running()) {
    const master = await readFile(join(stream, 'index.m3u8'), 'utf8').catch(() => '');
    if (master.includes('#EXT-X-STREAM-INF')) liveName = master.split('\n').find((line) => line.endsWith('.m3u8'));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect((await publisher.done).code).toBe(0);
  await recorder.waitFor((e) => e.msg === 'publication ended');
  return {
    dir: stream,
    live: await readFile(join(stream, liveName!), 'utf8'),
    vod: await readFile(join(stream, 'index.m3u8'), 'utf8'),
    logs: recorder.entries,
    parts: await readdir(join(dir, 'recordings', name)),
  };
}

const target = (playlist: string) => Number(/#EXT-X-TARGETDURATION:(\d+)/.exec(playlist)?.[1]);
const durations = (playlist: string) => parseMediaPlaylist(playlist).map((segment) => segment.duration);
const reencoded = (logs: Record<string, any>[]) => logs.some((e) => e.msg.startsWith('hls re-encoding'));

describe('keyframes and segments', () => {
  it('re-encodes keyframes 4 s apart into 1 s segments, all of the publish, with a 1 s live playlist', async () => {
    const show = await publishOnce({ gop: 100 }, 'auto');
    expect(reencoded(show.logs)).toBe(true);
    expect(target(show.live)).toBe(1);
    expect(target(show.vod)).toBe(1);
    const vod = durations(show.vod);
    expect(Math.max(...vod.slice(0, -1))).toBeLessThan(1.5);
    expect(vod.reduce((a, b) => a + b, 0)).toBeGreaterThan(9.5);
    expect(show.parts).toHaveLength(1);
    // Re-encoded with a keyframe each second: a keyframe starts every segment.
    const first = parseMediaPlaylist(show.vod)[1]!.uri;
    const frames = await ffprobe(['-v', 'error', '-select_streams', 'v', '-show_entries', 'packet=flags', '-of', 'csv=p=0', join(show.dir, first)]);
    expect(frames.stdout.split('\n')[0]).toMatch(/^K/);
  }, 60_000);

  it('copies a first GOP of 2 s then keyframes every second; the first segment is in the recording, not in the live playlist', async () => {
    const show = await publishOnce({ keyframesAt: 'eq(n,0)+gte(n,50)*eq(mod(n,25),0)' }, 'auto');
    expect(reencoded(show.logs)).toBe(false);
    expect(target(show.live)).toBe(1);
    const [first] = parseMediaPlaylist(show.vod);
    expect(first!.duration).toBeCloseTo(2, 1);
    expect(show.live).not.toContain(first!.uri);
    expect(target(show.vod)).toBe(2);
  }, 60_000);

  it('switches a copy to re-encoding when keyframes drift apart mid-publish: a new part, nothing lost', async () => {
    // A keyframe a second for 4 s, then one every 4 s.
    const show = await publishOnce({ keyframesAt: 'lt(n,100)*eq(mod(n,25),0)+gte(n,100)*eq(mod(n,100),0)' }, 'auto', 12);
    expect(reencoded(show.logs)).toBe(true);
    expect(show.parts).toHaveLength(2);
    expect(target(show.live)).toBe(1);
    expect(show.live).toContain('#EXT-X-DISCONTINUITY');
    const vod = durations(show.vod);
    expect(Math.max(...vod)).toBeLessThan(1.5);
    // The copy stops where the re-encoding starts: the show is as long as the publish (within a frame or two per part).
    expect(vod.reduce((a, b) => a + b, 0)).toBeGreaterThan(11.5);
    expect(vod.reduce((a, b) => a + b, 0)).toBeLessThan(12.5);
  }, 60_000);

  it('copies keyframes 0.8 s apart as one segment each: no segment of two GOPs, target 1', async () => {
    const show = await publishOnce({ gop: 20 }, 'auto', 12);
    expect(reencoded(show.logs)).toBe(false);
    expect(target(show.live)).toBe(1);
    const vod = durations(show.vod);
    expect(Math.max(...vod.slice(0, -1))).toBeCloseTo(0.8, 1);
  }, 60_000);

  it('with re-encoding off, copies keyframes 4 s apart: 4 s segments and a live playlist of target 4', async () => {
    const show = await publishOnce({ gop: 100 }, 'off');
    expect(reencoded(show.logs)).toBe(false);
    expect(target(show.live)).toBe(4);
    expect(durations(show.vod)[1]).toBeCloseTo(4, 1);
  }, 60_000);
});

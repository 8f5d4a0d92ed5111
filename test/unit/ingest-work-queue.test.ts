import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkQueue } from '../../ingest-container/src/hls/work-queue';
import type { StoredSegment } from '../../recording/recording';

const folders: string[] = [];
afterEach(async () => Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true }))));

/** A work folder as ffmpeg leaves it: segment files of `bytes` each, and the playlists naming them. */
async function workFolder(playlists: Record<string, string[]>, bytes = 10) {
  const dir = await mkdtemp(join(tmpdir(), 'work-queue-'));
  folders.push(dir);
  for (const [name, segments] of Object.entries(playlists)) {
    for (const uri of segments) await writeFile(join(dir, uri), Buffer.alloc(bytes));
    await writeFile(join(dir, name), ['#EXTM3U', '#EXT-X-TARGETDURATION:1', ...segments.flatMap((uri) => ['#EXTINF:1.000,', uri]), ''].join('\n'));
  }
  return dir;
}

function queueOver(workDir: string, bufferLimitBytes = 1_000) {
  const dropped: string[] = [];
  const masters: string[] = [];
  const queue = createWorkQueue({ workDir, bufferLimitBytes, masterFound: (text) => void masters.push(text), dropped: (segment) => void dropped.push(segment.uri) });
  /** Stores everything (recording the order), failing at `failAt`; answers what each rendition got stored. */
  const storeAll = async (failAt?: string) => {
    const order: string[] = [];
    const stored: Record<string, string[]> = {};
    const storing = queue.storeInOrder(
      async (uri) => {
        if (uri === failAt) throw new Error('store down');
        order.push(uri);
        return true;
      },
      (rendition: string, segments: StoredSegment[]) => void (stored[rendition] = segments.map((segment) => segment.uri)),
    );
    const error = await storing.then(() => undefined, (failure: Error) => failure.message);
    return { order, stored, error };
  };
  return { queue, dropped, masters, storeAll };
}

describe('the uploader\'s work queue', () => {
  it('queues each segment once, in its playlist\'s order, and a rendition\'s stored segments are handed over together', async () => {
    const dir = await workFolder({ 'index.m3u8': ['a0.ts', 'a1.ts'] });
    const { queue, storeAll } = queueOver(dir);
    await queue.discover();
    await queue.discover();
    expect(queue.waiting()).toBe(2);
    expect(await storeAll()).toEqual({ order: ['a0.ts', 'a1.ts'], stored: { 'index.m3u8': ['a0.ts', 'a1.ts'] }, error: undefined });
    await writeFile(join(dir, 'a2.ts'), Buffer.alloc(10));
    await writeFile(join(dir, 'index.m3u8'), '#EXTM3U\n#EXTINF:1.000,\na0.ts\n#EXTINF:1.000,\na1.ts\n#EXTINF:1.000,\na2.ts\n');
    await queue.discover();
    expect(queue.waiting()).toBe(1);
  });

  it('a failed store keeps that segment and those after it queued; the ones before are handed over', async () => {
    const dir = await workFolder({ 'index.m3u8': ['a0.ts', 'a1.ts', 'a2.ts'] });
    const { queue, storeAll } = queueOver(dir);
    await queue.discover();
    expect(await storeAll('a1.ts')).toEqual({ order: ['a0.ts'], stored: { 'index.m3u8': ['a0.ts'] }, error: 'store down' });
    expect(queue.waiting()).toBe(2);
    expect((await storeAll()).order).toEqual(['a1.ts', 'a2.ts']);
  });

  it('a segment the store answers as gone is left out, not retried', async () => {
    const dir = await workFolder({ 'index.m3u8': ['a0.ts', 'a1.ts'] });
    const { queue } = queueOver(dir);
    await queue.discover();
    const stored: string[] = [];
    await queue.storeInOrder(async (uri) => uri !== 'a0.ts', (_rendition, segments) => stored.push(...segments.map((s) => s.uri)));
    expect(stored).toEqual(['a1.ts']);
    expect(queue.waiting()).toBe(0);
  });

  it('past the bound, the oldest segment of the longest queue is dropped: its file deleted and reported', async () => {
    const dir = await workFolder({ 'v0.m3u8': ['v0_0.ts', 'v0_1.ts', 'v0_2.ts'], 'v1.m3u8': ['v1_0.ts'] }, 100);
    const { queue, dropped } = queueOver(dir, 250);
    await queue.discover();
    expect(dropped).toEqual(['v0_0.ts', 'v0_1.ts']);
    expect(queue.waiting()).toBe(2);
    await expect.poll(() => existsSync(join(dir, 'v0_0.ts'))).toBe(false);
    expect(existsSync(join(dir, 'v1_0.ts'))).toBe(true);
  });

  it('a master playlist is handed over, not queued', async () => {
    const dir = await workFolder({});
    const master = '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2800000\nv0.m3u8\n';
    await writeFile(join(dir, 'index.m3u8'), master);
    const { queue, masters } = queueOver(dir);
    await queue.discover();
    expect(masters).toEqual([master]);
    expect(queue.waiting()).toBe(0);
  });

  it('a watermarked part: the A playlist drives, each segment queued as its .w.ts, B playlists not read', async () => {
    const dir = await workFolder({ 'index.m3u8': ['r_00000.a.ts', 'r_00001.a.ts'], 'index.b.m3u8': ['r_00000.b.ts', 'r_00001.b.ts'] });
    const { queue, storeAll } = queueOver(dir);
    await queue.discover();
    expect(queue.waiting()).toBe(2);
    expect(await storeAll()).toEqual({ order: ['r_00000.w.ts', 'r_00001.w.ts'], stored: { 'index.m3u8': ['r_00000.w.ts', 'r_00001.w.ts'] }, error: undefined });
  });

  it('a watermarked segment counts both versions against the bound, and dropping it deletes both', async () => {
    const dir = await workFolder({ 'index.m3u8': ['r_00000.a.ts', 'r_00001.a.ts'], 'index.b.m3u8': ['r_00000.b.ts', 'r_00001.b.ts'] }, 100);
    const { queue, dropped } = queueOver(dir, 300);
    await queue.discover();
    expect(dropped).toEqual(['r_00000.w.ts']);
    await expect.poll(() => existsSync(join(dir, 'r_00000.a.ts')) || existsSync(join(dir, 'r_00000.b.ts'))).toBe(false);
    expect(existsSync(join(dir, 'r_00001.b.ts'))).toBe(true);
  });
});

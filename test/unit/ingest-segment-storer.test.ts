import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSegmentStorer } from '../../ingest-container/src/hls/segment-storer';
import { fingerprintKey } from '../../ingest-container/src/hls/fingerprint';
import { folderStore } from '../../recording/store';

const folders: string[] = [];
afterEach(async () => Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true }))));

async function setUp(options: { fingerprints?: { rendition: string; ffmpegPath: string }; versionBWaitMs?: number } = {}) {
  const workDir = await mkdtemp(join(tmpdir(), 'storer-work-'));
  const root = await mkdtemp(join(tmpdir(), 'storer-store-'));
  folders.push(workDir, root);
  const errors: { msg: string; fields?: Record<string, unknown> }[] = [];
  const log = { debug() {}, info() {}, warn() {}, error: (msg: string, fields?: Record<string, unknown>) => void errors.push({ msg, fields }) };
  const storeSegment = createSegmentStorer({ workDir, streamName: 'ev1', store: folderStore(root), log, metrics: { count() {} }, ...options });
  return { workDir, root, errors, storeSegment };
}

describe('storing a watermarked segment', () => {
  it('stores .a.ts and .b.ts for a .w.ts, waiting for B when A is ready first, and deletes both local copies', async () => {
    const { workDir, root, storeSegment } = await setUp();
    await writeFile(join(workDir, 'p_00003.a.ts'), 'A');
    const storing = storeSegment('p_00003.w.ts', 'index.m3u8');
    // B appears only after the store has begun waiting for it.
    await new Promise((resolve) => setTimeout(resolve, 120));
    await writeFile(join(workDir, 'p_00003.b.ts'), 'B');
    expect(await storing).toBe(true);
    expect(await readFile(join(root, 'streams/ev1/p_00003.a.ts'), 'utf8')).toBe('A');
    expect(await readFile(join(root, 'streams/ev1/p_00003.b.ts'), 'utf8')).toBe('B');
    expect(existsSync(join(root, 'streams/ev1/p_00003.w.ts'))).toBe(false);
    expect(existsSync(join(workDir, 'p_00003.a.ts')) || existsSync(join(workDir, 'p_00003.b.ts'))).toBe(false);
  });

  it('B never written: the segment is left out (neither version stored), logged', async () => {
    const { workDir, root, errors, storeSegment } = await setUp({ versionBWaitMs: 150 });
    await writeFile(join(workDir, 'p_00004.a.ts'), 'A');
    expect(await storeSegment('p_00004.w.ts', 'index.m3u8')).toBe(false);
    expect(existsSync(join(root, 'streams/ev1/p_00004.a.ts'))).toBe(false);
    expect(existsSync(join(workDir, 'p_00004.a.ts'))).toBe(false);
    expect(errors).toEqual([{ msg: 'hls segment missing from the work folder, left out', fields: { stream_name: 'ev1', segment: 'p_00004.b.ts' } }]);
  });

  it('a fingerprint ffmpeg cannot make is logged; the segment is stored all the same', async () => {
    const { workDir, root, errors, storeSegment } = await setUp({ fingerprints: { rendition: 'index_1.m3u8', ffmpegPath: join(tmpdir(), 'no-such-ffmpeg') } });
    await writeFile(join(workDir, 'p_00005.1.a.ts'), 'A');
    await writeFile(join(workDir, 'p_00005.1.b.ts'), 'B');
    expect(await storeSegment('p_00005.1.w.ts', 'index_1.m3u8')).toBe(true);
    expect(existsSync(join(root, 'streams/ev1/p_00005.1.b.ts'))).toBe(true);
    expect(errors.map((e) => e.msg)).toEqual(['watermark fingerprint not made, left out']);
    expect(fingerprintKey('ev1', 'p_00005.1.a.ts')).toBe('recordings/ev1/fingerprints/p_00005.fp');
    expect(fingerprintKey('ev1', 'p_00005.ts')).toBeUndefined();
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../recording/log';
import type { PartRecord } from '../../recording/part-record';
import { Recording, recordingPrefix } from '../../recording/recording';
import { folderStore, PLAYLIST_CONTENT_TYPE, type HlsStore } from '../../recording/store';

/**
 * The recording index, the contract between the ingest (which writes it while a show runs) and the
 * recording sweep (which writes the final playlists from it after an ingest died): its JSON parts
 * under `recordings/<eventId>/`, and the playlists built from them.
 */
let root: string;
let store: HlsStore;
const errors: { msg: string; fields?: Record<string, unknown> }[] = [];
const log: Logger = { debug() {}, info() {}, warn() {}, error: (msg, fields) => void errors.push({ msg, fields }) };

const text = async (key: string) => (await store.get(key))?.toString();
const segments = (prefix: string, count: number) => Array.from({ length: count }, (_, n) => ({ uri: `${prefix}-${n}.ts`, duration: 1, bytes: 1_000 }));
const live = { segmentSeconds: 1, dvrWindowSeconds: 120 };

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'recording-'));
  store = folderStore(root);
  errors.length = 0;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('recording index', () => {
  it('stores one JSON part per publish under recordings/<eventId>/, outside what viewers fetch', async () => {
    const recording = await Recording.open(store, 'evt-1', log, { id: 'pub-a', ...live });
    recording.add('index.m3u8', segments('a', 2));
    await recording.save();
    const [key] = await store.list(recordingPrefix('evt-1'));
    expect(key).toMatch(/^recordings\/evt-1\/\d{15}-pub-a\.json$/);
    const part = JSON.parse((await text(key!))!) as PartRecord;
    expect(part).toEqual({ version: 1, publishId: 'pub-a', startedAt: expect.any(String), segmentSeconds: 1, dvrWindowSeconds: 120, renditions: { 'index.m3u8': [['a-0.ts', 1], ['a-1.ts', 1]] } });
  });

  it('writes the whole show as VOD from the parts another process stored, one run per publish', async () => {
    for (const publish of ['a', 'b']) {
      const recording = await Recording.open(store, 'evt-1', log, { id: `pub-${publish}`, ...live });
      recording.add('index.m3u8', segments(publish, 2));
      await recording.save();
      // Part keys start with the publish's start in ms: the second must sort after the first.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    // What the sweep does after an ingest died: open without a publish, write the final playlists.
    await (await Recording.open(store, 'evt-1', log)).putFinalPlaylists();
    const playlist = await text('streams/evt-1/index.m3u8');
    expect(playlist).toContain('#EXT-X-PLAYLIST-TYPE:VOD');
    expect(playlist!.trim().endsWith('#EXT-X-ENDLIST')).toBe(true);
    expect(playlist!.split('\n').filter((line) => line.endsWith('.ts'))).toEqual(['a-0.ts', 'a-1.ts', 'b-0.ts', 'b-1.ts']);
    expect(playlist!.match(/#EXT-X-DISCONTINUITY\n/g)).toHaveLength(1);
  });

  it('writes a ladder\'s renditions first and its master playlist last', async () => {
    const recording = await Recording.open(store, 'evt-2', log, { id: 'pub-a', ...live });
    recording.add('index_0.m3u8', segments('hi', 1));
    recording.add('index_1.m3u8', segments('lo', 1));
    recording.setMaster('#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nindex_0.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2\nindex_1.m3u8\n');
    await recording.save();
    await (await Recording.open(store, 'evt-2', log)).putFinalPlaylists();
    // The live playlists (`-live1`) are ended too, so players that hold them play to the end.
    expect(await store.list('streams/evt-2/')).toEqual([
      'streams/evt-2/index.m3u8',
      'streams/evt-2/index_0-live1.m3u8',
      'streams/evt-2/index_0.m3u8',
      'streams/evt-2/index_1-live1.m3u8',
      'streams/evt-2/index_1.m3u8',
    ]);
    expect(await text('streams/evt-2/index.m3u8')).toContain('#EXT-X-STREAM-INF');
    expect(PLAYLIST_CONTENT_TYPE).toBe('application/vnd.apple.mpegurl');
  });

  it('leaves out an unreadable part, logging it, and keeps the rest', async () => {
    const recording = await Recording.open(store, 'evt-3', log, { id: 'pub-a', ...live });
    recording.add('index.m3u8', segments('a', 1));
    await recording.save();
    await store.put(`${recordingPrefix('evt-3')}000000000000000-broken.json`, { body: Buffer.from('{'), contentType: 'application/json', cacheControl: 'no-store' });
    await (await Recording.open(store, 'evt-3', log)).putFinalPlaylists();
    expect(await text('streams/evt-3/index.m3u8')).toContain('a-0.ts');
    expect(errors).toEqual([{ msg: 'recording index unreadable, part left out', fields: expect.objectContaining({ stream_name: 'evt-3' }) }]);
  });

  it('writes nothing for an event without a stored segment', async () => {
    await (await Recording.open(store, 'evt-4', log)).putFinalPlaylists();
    expect(await store.list('streams/evt-4/')).toEqual([]);
  });

  it('a watermarked part: its index carries the signs and names .w.ts; the final playlists built from the index (the sweep) name them too', async () => {
    const recording = await Recording.open(store, 'evt-w', log, { id: 'pub-w', ...live });
    recording.markPart({ signs: '+-+-+-+-+-+-' });
    recording.add('index.m3u8', [{ uri: 'pub-w_00000.w.ts', duration: 1, bytes: 1_000 }, { uri: 'pub-w_00001.w.ts', duration: 1, bytes: 1_000 }]);
    await recording.save();
    await recording.putLivePlaylists();
    recording.startPart('pub-w-part2', live);
    recording.add('index.m3u8', segments('plain', 1));
    await recording.save();

    const parts = await Promise.all((await store.list(recordingPrefix('evt-w'))).sort().map(async (key) => JSON.parse((await text(key))!) as PartRecord));
    expect(parts.map((part) => part.watermark)).toEqual([{ signs: '+-+-+-+-+-+-' }, undefined]);
    expect(parts[0]!.renditions['index.m3u8']).toEqual([['pub-w_00000.w.ts', 1], ['pub-w_00001.w.ts', 1]]);
    expect(await text('streams/evt-w/index-live1.m3u8')).toContain('\npub-w_00001.w.ts\n');

    // What the recording sweep does after an ingest died: the index read back, the VOD playlists written from it.
    await (await Recording.open(store, 'evt-w', log)).putFinalPlaylists();
    const vod = (await text('streams/evt-w/index.m3u8'))!;
    expect(vod.split('\n').filter((line) => line.endsWith('.ts'))).toEqual(['pub-w_00000.w.ts', 'pub-w_00001.w.ts', 'plain-0.ts']);
  });
});

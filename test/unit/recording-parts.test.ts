/** The recording's playlists as the ingest writes them, on an in-memory store: multivariant entry, live playlists per target duration, the end. */
import { describe, expect, it } from 'vitest';
import { livePlaylistName, Recording } from '../../recording/recording';
import type { HlsStore } from '../../recording/store';
import { createLogger } from '../../ingest-container/src/log';

function memoryStore() {
  const objects = new Map<string, string>();
  const store: HlsStore = {
    location: 'memory',
    put: async (key, object) => void objects.set(key, object.body.toString()),
    get: async (key) => (objects.has(key) ? Buffer.from(objects.get(key)!) : undefined),
    list: async (prefix) => [...objects.keys()].filter((key) => key.startsWith(prefix) && !key.slice(prefix.length).includes('/')).sort(),
  };
  return { store, text: (name: string) => objects.get(`streams/show/${name}`) };
}

const log = createLogger('error', () => undefined);
const live = { segmentSeconds: 1, dvrWindowSeconds: 120 };
const segments = (id: string, durations: number[], from = 0) => durations.map((duration, n) => ({ uri: `${id}_${from + n}.ts`, duration, bytes: 250_000 }));
const variant = (master: string | undefined) => master?.split('\n').find((line) => line.endsWith('.m3u8'));
const target = (text: string | undefined) => Number(/#EXT-X-TARGETDURATION:(\d+)/.exec(text ?? '')?.[1]);

/** One publish: its segments stored batch by batch, as the uploader does. */
async function publish(store: HlsStore, id: string, batches: number[][], settings = live) {
  const recording = await Recording.open(store, 'show', log, { id, ...settings });
  await recording.putLivePlaylists();
  let stored = 0;
  for (const batch of batches) {
    recording.add('index.m3u8', segments(id, batch, stored));
    stored += batch.length;
    await recording.save();
    await recording.putLivePlaylists();
  }
  return recording;
}

describe('live playlists of a recording', () => {
  it("index.m3u8 names the current publish's playlist, whose target is the segment length: a 2 s first GOP pins nothing", async () => {
    const { store, text } = memoryStore();
    await publish(store, 'p1', [[1.999], [1, 1], [1]]);
    const master = text('index.m3u8')!;
    expect(master).toContain('#EXT-X-STREAM-INF:BANDWIDTH=2000000\n');
    expect(variant(master)).toBe('index-live1.m3u8');
    expect(target(text('index-live1.m3u8'))).toBe(1);
    expect(text('index-live1.m3u8')).not.toContain('p1_0.ts');
  });

  it('keyint 250 copied, then keyint 30 on the same event: the second publish has a 1 s playlist, the 8 s one ends', async () => {
    const { store, text } = memoryStore();
    const first = await publish(store, 'p1', [[8.33], [8.33], [8.33]]);
    expect(variant(text('index.m3u8'))).toBe('index-live8.m3u8');
    expect(target(text('index-live8.m3u8'))).toBe(8);
    await first.putFinalPlaylists();
    expect(text('index.m3u8')).toContain('#EXT-X-PLAYLIST-TYPE:VOD');
    expect(text('index-live8.m3u8')).toMatch(/#EXT-X-ENDLIST\n$/);

    await publish(store, 'p2', [[1.999], [1, 1, 1]]);
    expect(variant(text('index.m3u8'))).toBe('index-live1.m3u8');
    const second = text('index-live1.m3u8')!;
    expect(target(second)).toBe(1);
    expect(second).not.toContain('p1_');
    expect(second).not.toContain('ENDLIST');
  });

  it('copied segments that grow longer move the live playlist: the old one ends, index.m3u8 names the new one', async () => {
    const { store, text } = memoryStore();
    await publish(store, 'p1', [[1, 1], [1, 4.2]]);
    expect(text('index-live1.m3u8')).toMatch(/p1_2\.ts\n#EXT-X-ENDLIST\n$/);
    expect(variant(text('index.m3u8'))).toBe('index-live4.m3u8');
    expect(target(text('index-live4.m3u8'))).toBe(4);
  });

  it('a reconnect from another address (a new publish, same target) continues the same live playlist after a discontinuity', async () => {
    const { store, text } = memoryStore();
    await publish(store, 'p1', [[1, 1, 1]]);
    await publish(store, 'p2', [[1, 1]]);
    const playlist = text('index-live1.m3u8')!;
    expect(playlist.split('\n').filter((line) => line.endsWith('.ts'))).toEqual(['p1_0.ts', 'p1_1.ts', 'p1_2.ts', 'p2_0.ts', 'p2_1.ts']);
    expect(playlist).toContain('p1_2.ts\n#EXT-X-DISCONTINUITY\n');
  });

  it('re-encoding a publish mid-way is a new part: a discontinuity, same playlist', async () => {
    const { store, text } = memoryStore();
    const recording = await publish(store, 'p1', [[1, 1, 1.2]]);
    recording.startPart('p1-reencoded', live);
    recording.add('index.m3u8', segments('p1-reencoded', [1, 1]));
    await recording.save();
    await recording.putLivePlaylists();
    expect(text('index-live1.m3u8')).toContain('p1_2.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:1.000000,\np1-reencoded_0.ts');
    const reread = await Recording.open(store, 'show', log);
    expect(reread.runs('index.m3u8').map((run) => run.length)).toEqual([3, 2]);
  });

  it("a ladder's master names each rendition's live playlist while live, its VOD playlists after", async () => {
    const { store, text } = memoryStore();
    const ladder = '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-STREAM-INF:BANDWIDTH=3220800,RESOLUTION=1280x720\nindex_0.m3u8\n\n#EXT-X-STREAM-INF:BANDWIDTH=1020800\nindex_1.m3u8\n';
    const recording = await Recording.open(store, 'show', log, { id: 'p1', ...live });
    recording.setMaster(ladder);
    recording.add('index_0.m3u8', segments('p1_0', [1, 1]));
    await recording.save();
    await recording.putLivePlaylists();
    // Not before each rendition has its playlist.
    expect(text('index.m3u8')).toBeUndefined();
    recording.add('index_1.m3u8', segments('p1_1', [1, 1]));
    await recording.save();
    await recording.putLivePlaylists();
    expect(text('index.m3u8')).toContain(`\n${livePlaylistName('index_0.m3u8', 1)}\n`);
    expect(text('index.m3u8')).toContain('\nindex_1-live1.m3u8\n');
    await recording.putFinalPlaylists();
    expect(text('index.m3u8')).toBe(ladder);
    expect(text('index_1.m3u8')).toContain('#EXT-X-PLAYLIST-TYPE:VOD');
    expect(text('index_1-live1.m3u8')).toMatch(/#EXT-X-ENDLIST\n$/);
  });
});

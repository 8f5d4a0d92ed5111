import { describe, expect, it } from 'vitest';
import {
  liveTargetDuration,
  parseMediaPlaylist,
  renameVariants,
  renderLivePlaylist,
  renderSingleVariantPlaylist,
  renderVodPlaylist,
  type Segment,
} from '../../recording/media-playlist';

const run = (id: string, count: number, duration = 2) => Array.from({ length: count }, (_, n) => ({ uri: `${id}_${n}.ts`, duration }));
const seconds = (id: string, durations: number[]): Segment[] => durations.map((duration, n) => ({ uri: `${id}_${n}.ts`, duration }));
const uris = (text: string | undefined) => (text ?? '').split('\n').filter((line) => line !== '' && !line.startsWith('#'));
const tag = (text: string | undefined, name: string) => new RegExp(`^#${name}:(\\d+)$`, 'm').exec(text ?? '')?.[1];

describe('recording playlists', () => {
  it('VOD: every segment of every publish, a discontinuity between publishes, ENDLIST', () => {
    const text = renderVodPlaylist([run('a', 2), [], run('b', 2)]);
    expect(text).toBe(
      ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-TARGETDURATION:2', '#EXT-X-MEDIA-SEQUENCE:0', '#EXT-X-PLAYLIST-TYPE:VOD',
        '#EXT-X-INDEPENDENT-SEGMENTS', '#EXTINF:2.000000,', 'a_0.ts', '#EXTINF:2.000000,', 'a_1.ts', '#EXT-X-DISCONTINUITY',
        '#EXTINF:2.000000,', 'b_0.ts', '#EXTINF:2.000000,', 'b_1.ts', '#EXT-X-ENDLIST', ''].join('\n'),
    );
  });

  it('VOD: the target duration is the longest segment of the whole show, first segments included', () => {
    expect(tag(renderVodPlaylist([seconds('a', [8.33, 8.33]), seconds('b', [1.999, 1, 1])]), 'EXT-X-TARGETDURATION')).toBe('8');
  });

  it('live: the DVR window tail, numbered by every segment and break before it', () => {
    const runs = [run('a', 5), run('b', 3)];
    const window = renderLivePlaylist({ runs, target: 2, windowSeconds: 8 });
    expect(uris(window)).toEqual(['a_4.ts', 'b_0.ts', 'b_1.ts', 'b_2.ts']);
    expect(window).toContain('#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:4\n');
    expect(window).not.toContain('DISCONTINUITY-SEQUENCE');
    expect(window).toContain('a_4.ts\n#EXT-X-DISCONTINUITY\n');
    expect(window).not.toMatch(/ENDLIST|PLAYLIST-TYPE/);

    const later = renderLivePlaylist({ runs, target: 2, windowSeconds: 4 });
    expect(uris(later)).toEqual(['b_1.ts', 'b_2.ts']);
    expect(later).toContain('#EXT-X-MEDIA-SEQUENCE:6\n#EXT-X-DISCONTINUITY-SEQUENCE:1\n');
    expect(later).not.toContain('#EXT-X-DISCONTINUITY\n');
  });

  it("live target: the segment length, whatever the run's first segment; longer when later copied segments are", () => {
    expect(liveTargetDuration(seconds('p', [1.999, 1, 1.001, 1]), 1)).toBe(1);
    expect(liveTargetDuration(seconds('p', [8.33, 8.33]), 1)).toBe(8);
    expect(liveTargetDuration([], 2)).toBe(2);
    expect(liveTargetDuration(seconds('p', [0.5, 0.5]), 0.5)).toBe(1);
  });

  it('a long first segment pins nothing: left out of the live playlist, its target stays the segment length', () => {
    const runs = [seconds('p', [1.999, 1, 1, 1])];
    const text = renderLivePlaylist({ runs, target: liveTargetDuration(runs[0]!, 1), windowSeconds: 120 });
    expect(tag(text, 'EXT-X-TARGETDURATION')).toBe('1');
    expect(uris(text)).toEqual(['p_1.ts', 'p_2.ts', 'p_3.ts']);
    expect(tag(text, 'EXT-X-MEDIA-SEQUENCE')).toBe('0');
  });

  it('after a publish at OBS defaults, a publish with 1 s keyframes gets a 1 s playlist: the 8 s run is not in it', () => {
    const runs = [seconds('a', [8.33, 8.33, 8.33]), seconds('b', [1.999, 1, 1])];
    const target = liveTargetDuration(runs[1]!, 1);
    const text = renderLivePlaylist({ runs, target, windowSeconds: 120 });
    expect(tag(text, 'EXT-X-TARGETDURATION')).toBe('1');
    expect(uris(text)).toEqual(['b_1.ts', 'b_2.ts']);
    // Numbered by the segments that fit this target, its breaks by the runs before it.
    expect(text).toContain('#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-DISCONTINUITY-SEQUENCE:1\n');
  });

  it('crosses into earlier runs that fit, skipping their long first segment, and numbers consistently as the window slides', () => {
    const runs = [run('a', 3, 1), seconds('b', [2, 1, 1])];
    const whole = renderLivePlaylist({ runs, target: 1, windowSeconds: 120 });
    expect(uris(whole)).toEqual(['a_0.ts', 'a_1.ts', 'a_2.ts', 'b_1.ts', 'b_2.ts']);
    expect(whole).toContain('a_2.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:1.000000,\nb_1.ts');
    // b_1 is number 3 in both versions.
    const slid = renderLivePlaylist({ runs, target: 1, windowSeconds: 2 });
    expect(uris(slid)).toEqual(['b_1.ts', 'b_2.ts']);
    expect(slid).toContain('#EXT-X-MEDIA-SEQUENCE:3\n#EXT-X-DISCONTINUITY-SEQUENCE:1\n');
  });

  it('stops at a run that would show nothing, so every break in the window is one run', () => {
    const runs = [run('a', 3, 1), seconds('b', [2]), seconds('c', [1, 1])];
    const text = renderLivePlaylist({ runs, target: 1, windowSeconds: 120 });
    expect(uris(text)).toEqual(['c_0.ts', 'c_1.ts']);
    expect(text).toContain('#EXT-X-MEDIA-SEQUENCE:3\n#EXT-X-DISCONTINUITY-SEQUENCE:2\n');
  });

  it('a playlist whose target was outgrown ends where it stood: its last version plus ENDLIST', () => {
    const before = renderLivePlaylist({ runs: [seconds('p', [1, 1])], target: 1, windowSeconds: 120 })!;
    const ended = renderLivePlaylist({ runs: [seconds('p', [1, 1, 3.2, 3.1])], target: 1, windowSeconds: 120, ended: true })!;
    expect(ended).toBe(`${before}#EXT-X-ENDLIST\n`);
  });

  it('nothing that fits: no playlist', () => {
    expect(renderLivePlaylist({ runs: [seconds('p', [8.33])], target: 1, windowSeconds: 120 })).toBeUndefined();
    expect(renderLivePlaylist({ runs: [], target: 1, windowSeconds: 120 })).toBeUndefined();
  });

  it('multivariant playlists: one variant, or the ladder pointed at other playlists', () => {
    expect(renderSingleVariantPlaylist('index-live1.m3u8', 3_000_000)).toBe(
      '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-STREAM-INF:BANDWIDTH=3000000\nindex-live1.m3u8\n',
    );
    const ladder = '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-STREAM-INF:BANDWIDTH=3220800,RESOLUTION=1280x720\nindex_0.m3u8\n\n#EXT-X-STREAM-INF:BANDWIDTH=1020800\nindex_1.m3u8\n';
    expect(uris(renameVariants(ladder, (uri) => uri.replace('.m3u8', '-live1.m3u8')))).toEqual(['index_0-live1.m3u8', 'index_1-live1.m3u8']);
  });

  it("reads ffmpeg's playlist", () => {
    const ffmpeg = '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:2.002000,\np_00000.ts\n#EXTINF:1.960000,\np_00001.ts\n#EXT-X-ENDLIST\n';
    expect(parseMediaPlaylist(ffmpeg)).toEqual([{ uri: 'p_00000.ts', duration: 2.002 }, { uri: 'p_00001.ts', duration: 1.96 }]);
  });
});

import { describe, expect, it } from 'vitest';
import { parseMediaPlaylist, renderMediaPlaylist } from '../../recording/media-playlist';

const run = (id: string, count: number) => Array.from({ length: count }, (_, n) => ({ uri: `${id}_${n}.ts`, duration: 2 }));
const uris = (text: string) => text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));

describe('recording playlists', () => {
  it('VOD: every segment of every publish, a discontinuity between publishes, ENDLIST', () => {
    const text = renderMediaPlaylist({ runs: [run('a', 2), [], run('b', 2)] });
    expect(text).toBe(
      ['#EXTM3U', '#EXT-X-VERSION:3', '#EXT-X-TARGETDURATION:2', '#EXT-X-MEDIA-SEQUENCE:0', '#EXT-X-PLAYLIST-TYPE:VOD',
        '#EXT-X-INDEPENDENT-SEGMENTS', '#EXTINF:2.000000,', 'a_0.ts', '#EXTINF:2.000000,', 'a_1.ts', '#EXT-X-DISCONTINUITY',
        '#EXTINF:2.000000,', 'b_0.ts', '#EXTINF:2.000000,', 'b_1.ts', '#EXT-X-ENDLIST', ''].join('\n'),
    );
  });

  it('live: the DVR window tail, numbered by every segment and break before it', () => {
    const runs = [run('a', 5), run('b', 3)];
    const window = renderMediaPlaylist({ runs, liveWindowSeconds: 8 });
    expect(uris(window)).toEqual(['a_4.ts', 'b_0.ts', 'b_1.ts', 'b_2.ts']);
    expect(window).toContain('#EXT-X-MEDIA-SEQUENCE:4\n');
    expect(window).not.toContain('DISCONTINUITY-SEQUENCE');
    expect(window).toContain('a_4.ts\n#EXT-X-DISCONTINUITY\n');
    expect(window).not.toMatch(/ENDLIST|PLAYLIST-TYPE/);

    const later = renderMediaPlaylist({ runs, liveWindowSeconds: 4 });
    expect(uris(later)).toEqual(['b_1.ts', 'b_2.ts']);
    expect(later).toContain('#EXT-X-MEDIA-SEQUENCE:6\n#EXT-X-DISCONTINUITY-SEQUENCE:1\n');
    expect(later).not.toContain('#EXT-X-DISCONTINUITY\n');
  });

  it('target duration is the longest segment rounded, over the whole recording', () => {
    const text = renderMediaPlaylist({ runs: [[{ uri: 'x.ts', duration: 4.4 }], run('b', 3)], liveWindowSeconds: 2 });
    expect(text).toContain('#EXT-X-TARGETDURATION:4\n');
  });

  it("reads ffmpeg's playlist", () => {
    const ffmpeg = '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:2.002000,\np_00000.ts\n#EXTINF:1.960000,\np_00001.ts\n#EXT-X-ENDLIST\n';
    expect(parseMediaPlaylist(ffmpeg)).toEqual([{ uri: 'p_00000.ts', duration: 2.002 }, { uri: 'p_00001.ts', duration: 1.96 }]);
  });
});

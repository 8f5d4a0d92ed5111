import { describe, expect, it } from 'vitest';
import { playlistNameOf, referencedFiles, storedFilesOf } from '../../recording/playlist';
import { renderLivePlaylist, renderVodPlaylist } from '../../recording/media-playlist';
import { WATERMARKED_SEGMENT, momentOf } from '../../functions/domain/watermark/mark-bit';

describe('names of a watermarked part\'s segments', () => {
  it('playlists name .w.ts; it stands for the stored .a.ts and .b.ts', () => {
    expect(playlistNameOf('p1_00007.a.ts')).toBe('p1_00007.w.ts');
    expect(playlistNameOf('p1_00007.1.a.ts')).toBe('p1_00007.1.w.ts');
    expect(playlistNameOf('p1_00007.ts')).toBe('p1_00007.ts');
    expect(storedFilesOf('p1_00007.1.w.ts')).toEqual(['p1_00007.1.a.ts', 'p1_00007.1.b.ts']);
    expect(storedFilesOf('p1_00007.ts')).toEqual(['p1_00007.ts']);
  });

  it('what a playlist refers to: both versions of every watermarked segment, other names as they are', () => {
    const runs = [[{ uri: 'p0_00000.ts', duration: 1 }], [{ uri: 'p1_00000.w.ts', duration: 1 }, { uri: 'p1_00001.w.ts', duration: 1 }]];
    const files = ['p0_00000.ts', 'p1_00000.a.ts', 'p1_00000.b.ts', 'p1_00001.a.ts', 'p1_00001.b.ts'];
    expect(referencedFiles(renderVodPlaylist(runs))).toEqual(files);
    expect(referencedFiles(renderLivePlaylist({ runs, target: 1, windowSeconds: 120 })!)).toEqual(files);
  });

  it('the names the ingest writes are the ones the edge and the tracer read', () => {
    for (const name of ['run-1_00012.w.ts', 'run-1_00012.a.ts', 'run-1_00012.2.b.ts']) {
      expect(WATERMARKED_SEGMENT.test(`/${name}`)).toBe(true);
      expect(momentOf(name)).toEqual({ part: 'run-1', index: 12 });
    }
  });
});

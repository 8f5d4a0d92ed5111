import { describe, expect, it } from 'vitest';
import { ffmpegArgs, patternFile, type Packaging } from '../../ingest-container/src/hls/ffmpeg-args';
import { patternFromSigns } from '../../recording/watermark-pattern';

const pattern = patternFromSigns('++-+--+-+-+-')!;
const single: Packaging = { kind: 'watermark', pattern, renditions: [{ width: 1280, height: 720, videoKbps: 3000 }], ladder: false };
const ladder: Packaging = {
  kind: 'watermark',
  pattern,
  renditions: [
    { width: 1280, height: 720, videoKbps: 2800 },
    { width: 640, height: 360, videoKbps: 800 },
  ],
  ladder: true,
};

/** The arguments of each output (after the filter graph), split where an output file ends (its playlist). */
function outputs(args: string[]): string[][] {
  const rest = args.slice(args.indexOf('-filter_complex') + 2);
  const ends = rest.flatMap((arg, i) => (arg.endsWith('.m3u8') && rest[i - 1] !== '-master_pl_name' ? [i] : []));
  return ends.map((end, k) => rest.slice(k === 0 ? 0 : ends[k - 1]! + 1, end + 1));
}

describe('ffmpeg arguments of a watermarked part', () => {
  it('without a ladder: the pattern frame at the picture size, A blended by grainmerge and B by grainextract', () => {
    const args = ffmpegArgs('/work', 'run1', 1, single);
    expect(args.slice(args.indexOf('pipe:0') + 1, args.indexOf('-filter_complex'))).toEqual([
      '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', '1280x720', '-i', patternFile('/work', 0),
    ]);
    expect(args[args.indexOf('-filter_complex') + 1]).toBe(
      '[0:v]split=1[in0];[in0]scale=1280:720,format=yuv420p,split[xa0][xb0];[1:v]loop=loop=-1:size=1,split[pa0][pb0];' +
        '[xa0][pa0]blend=all_mode=grainmerge:shortest=1[a0];[xb0][pb0]blend=all_mode=grainextract:shortest=1[b0]',
    );
    const [a, b] = outputs(args);
    expect(a!.slice(0, 2)).toEqual(['-map', '[a0]']);
    expect(b!.slice(0, 2)).toEqual(['-map', '[b0]']);
    expect(a!.slice(-3)).toEqual(['-hls_segment_filename', '/work/run1_%05d.a.ts', '/work/index.m3u8']);
    expect(b!.slice(-3)).toEqual(['-hls_segment_filename', '/work/run1_%05d.b.ts', '/work/index.b.m3u8']);
    expect(a).toContain('-force_key_frames');
    expect(a!.slice(a!.indexOf('-c:a'), a!.indexOf('-c:a') + 2)).toEqual(['-c:a', 'copy']);
  });

  it('A and B are encoded with the same settings: only the picture and the names differ', () => {
    for (const packaging of [single, ladder]) {
      const [a, b] = outputs(ffmpegArgs('/work', 'run1', 2, packaging));
      const neutral = (output: string[]) => output.map((arg) => arg.replace(/\[[ab](\d)\]/, '[$1]').replace(/\.[ab]\.(ts|m3u8)$/, '.$1').replace('index_%v.b.m3u8', 'index_%v.m3u8'));
      const withoutMaster = (output: string[]) => output.filter((arg, i) => arg !== '-master_pl_name' && output[i - 1] !== '-master_pl_name');
      expect(neutral(withoutMaster(a!))).toEqual(neutral(b!));
    }
  });

  it('with a ladder: every rendition marked, the rendition after the number, the master only from A', () => {
    const args = ffmpegArgs('/work', 'run1', 2, ladder);
    expect(args.filter((arg) => arg.startsWith('/work/pattern_'))).toEqual([patternFile('/work', 0), patternFile('/work', 1)]);
    expect(args).toContain('640x360');
    const graph = args[args.indexOf('-filter_complex') + 1]!;
    expect(graph).toContain('[in1]scale=640:360,format=yuv420p,split[xa1][xb1]');
    expect(graph).toContain('[2:v]loop=loop=-1:size=1,split[pa1][pb1]');
    expect(graph).toContain('[xb1][pb1]blend=all_mode=grainextract:shortest=1[b1]');
    const [a, b] = outputs(args);
    expect(a!.filter((arg) => /^\[[ab]\d\]$/.test(arg))).toEqual(['[a0]', '[a1]']);
    expect(b!.filter((arg) => /^\[[ab]\d\]$/.test(arg))).toEqual(['[b0]', '[b1]']);
    expect(a!.slice(-5)).toEqual(['-master_pl_name', 'index.m3u8', '-hls_segment_filename', '/work/run1_%05d.%v.a.ts', '/work/index_%v.m3u8']);
    expect(b!.slice(-3)).toEqual(['-hls_segment_filename', '/work/run1_%05d.%v.b.ts', '/work/index_%v.b.m3u8']);
    expect(b).not.toContain('-master_pl_name');
  });
});

import { join } from 'node:path';
import type { MarkPattern } from '../../../recording/watermark-pattern';

/** One rung of the optional adaptive ladder: output height and video bitrate. */
export interface Rendition {
  height: number;
  videoKbps: number;
}

export interface PackagingOptions {
  segmentSeconds: number;
  /** Empty: one rendition, the publisher's video copied, or re-encoded when its keyframes are too far apart (see `reencode`). */
  ladder: readonly Rendition[];
  /**
   * Without a ladder: `auto` (default) re-encodes the video of a publisher
   * whose keyframes are further apart than the segment length, so segments
   * keep their length; `off` always copies (no transcoding CPU, but segments
   * then last as long as the publisher's keyframe interval).
   */
  reencode?: 'auto' | 'off';
}

/** A rendition of a watermarked part at its exact picture size: the pattern frame blended into it has that size. */
export interface MarkedRendition extends Rendition {
  width: number;
}

/** What one ffmpeg process makes of the FLV it is fed. */
export type Packaging =
  | { kind: 'copy' }
  /** H.264 at the publisher's bit rate with a keyframe every segment; `fromMs`: drop the picture before this stream time (its frames before were copied). */
  | { kind: 'reencode'; videoKbps: number; fromMs?: number }
  | { kind: 'ladder'; ladder: readonly Rendition[] }
  /**
   * A watermarked part (docs/watermark-design.md section 1): every rendition encoded twice, A with the
   * pattern added and B with it subtracted. `ladder` false: one rendition named as a copied stream's are
   * (`index.m3u8`); true: as a ladder's (`index_<v>.m3u8` and a master).
   */
  | { kind: 'watermark'; pattern: MarkPattern; renditions: readonly MarkedRendition[]; ladder: boolean };

/**
 * ffmpeg reads FLV on stdin (fed in-process from the broadcast) and writes
 * HLS into `workDir`. `temp_file` makes every segment and playlist appear by
 * rename, so the uploader never reads a half-written file. Segment names
 * start with the run's id (the publish id): names are never reused across
 * publishes of the same stream, which lets segments be cached as immutable.
 */
export function ffmpegArgs(workDir: string, runId: string, segmentSeconds: number, packaging: Packaging): string[] {
  // node-media-server's FLV header always announces audio and video, and for FLV ffmpeg's default analysis
  // window is 90 s: a publisher without audio would get no HLS for that long. 3 s bounds the wait for a
  // missing stream; a stream with both ends the analysis as soon as both have shown up.
  const input = ['-hide_banner', '-loglevel', 'error', '-analyzeduration', '3000000', '-f', 'flv', '-i', 'pipe:0'];
  const hls = [
    '-f', 'hls',
    // ffmpeg cuts segment n at the first keyframe at least n × hls_time into the stream. At the segment length, a
    // keyframe a frame early (OBS's come every 1.000 s give or take a frame), or keyframes every 0.8 s, miss cuts
    // and make segments of two GOPs, longer than the live playlist's target duration. At half of it, every
    // keyframe at least that far apart is a cut, and closer ones make segments shorter than the segment length.
    '-hls_time', String(segmentSeconds / 2),
    // The work folder's playlists keep every segment of the publish: they are how the uploader learns of
    // complete segments, and one it has not stored yet must not slide out. Viewers get our playlists.
    '-hls_list_size', '0',
    '-hls_flags', 'temp_file+independent_segments',
    '-hls_segment_type', 'mpegts',
  ];
  // Keyframes exactly one segment apart, so segments are cut on them (and every rendition of a ladder at the same instants).
  const keyframes = ['-force_key_frames', `expr:if(isnan(prev_forced_t),1,gte(t-prev_forced_t,${segmentSeconds}))`, '-sc_threshold', '0'];
  const x264 = ['-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-pix_fmt', 'yuv420p'];
  switch (packaging.kind) {
    case 'copy':
      return [...input, '-map', '0:v?', '-map', '0:a?', '-c', 'copy', ...hls, ...singleOutput(workDir, runId)];
    case 'reencode': {
      const kbps = packaging.videoKbps;
      // Resuming after copied segments: the stream's own timestamps, so the picture starts exactly where the copy stopped.
      const trim = packaging.fromMs === undefined ? [] : ['-copyts', '-vf', `trim=start=${packaging.fromMs / 1000}`];
      return [
        ...input,
        ...trim,
        '-map', '0:v?', '-map', '0:a?',
        ...x264, '-profile:v', 'high', '-b:v', `${kbps}k`, '-maxrate', `${kbps}k`, '-bufsize', `${kbps * 2}k`,
        ...keyframes,
        // The publisher's audio is fine as it is.
        '-c:a', 'copy',
        ...hls,
        ...singleOutput(workDir, runId),
      ];
    }
    case 'watermark':
      return [...input, ...watermarkArgs(workDir, runId, packaging, { x264, keyframes, hls })];
    case 'ladder': {
      const ladder = packaging.ladder;
      const split = `[0:v]split=${ladder.length}${ladder.map((_, i) => `[in${i}]`).join('')}`;
      const scales = ladder.map((r, i) => `[in${i}]scale=-2:${r.height}[out${i}]`);
      const perRendition = ladder.flatMap((r, i) => [
        '-map', `[out${i}]`, '-map', '0:a',
        `-b:v:${i}`, `${r.videoKbps}k`, `-maxrate:v:${i}`, `${r.videoKbps}k`, `-bufsize:v:${i}`, `${r.videoKbps * 2}k`,
      ]);
      return [
        ...input,
        '-filter_complex', [split, ...scales].join(';'),
        ...perRendition,
        ...x264, '-profile:v', 'main',
        ...keyframes,
        '-c:a', 'aac', '-b:a', '128k',
        '-var_stream_map', ladder.map((_, i) => `v:${i},a:${i}`).join(' '),
        ...hls,
        '-master_pl_name', 'index.m3u8',
        '-hls_segment_filename', join(workDir, `${runId}_%v_%05d.ts`),
        join(workDir, 'index_%v.m3u8'),
      ];
    }
  }
}

/** The raw yuv420p pattern frame of rendition `index` of a watermarked part, written to the work folder before ffmpeg starts. */
export const patternFile = (workDir: string, index: number) => join(workDir, `pattern_${index}.yuv`);

/** The work folder's playlist of version B of a rendition (`index.m3u8` → `index.b.m3u8`): the uploader follows A's. */
export const versionBPlaylist = (playlist: string) => playlist.replace(/\.m3u8$/, '.b.m3u8');

/**
 * One decode, every rendition split in two and blended with its pattern frame, looped: `grainmerge`
 * gives X + P (A), `grainextract` X − P (B). Two HLS outputs with the same encoder settings and the
 * same forced keyframes, so segment n of A and of B start at the same frame; audio the same in both.
 */
function watermarkArgs(
  workDir: string,
  runId: string,
  packaging: Extract<Packaging, { kind: 'watermark' }>,
  common: { x264: string[]; keyframes: string[]; hls: string[] },
): string[] {
  const { renditions, ladder } = packaging;
  const patterns = renditions.flatMap((r, i) => ['-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', `${r.width}x${r.height}`, '-i', patternFile(workDir, i)]);
  const graph = [
    `[0:v]split=${renditions.length}${renditions.map((_, i) => `[in${i}]`).join('')}`,
    ...renditions.flatMap((r, i) => [
      `[in${i}]scale=${r.width}:${r.height},format=yuv420p,split[xa${i}][xb${i}]`,
      `[${i + 1}:v]loop=loop=-1:size=1,split[pa${i}][pb${i}]`,
      `[xa${i}][pa${i}]blend=all_mode=grainmerge:shortest=1[a${i}]`,
      `[xb${i}][pb${i}]blend=all_mode=grainextract:shortest=1[b${i}]`,
    ]),
  ].join(';');
  const output = (version: 'a' | 'b') => {
    const perRendition = renditions.flatMap((r, i) => [
      '-map', `[${version}${i}]`, '-map', ladder ? '0:a' : '0:a?',
      `-b:v:${i}`, `${r.videoKbps}k`, `-maxrate:v:${i}`, `${r.videoKbps}k`, `-bufsize:v:${i}`, `${r.videoKbps * 2}k`,
    ]);
    const names = ladder
      ? [
          '-var_stream_map', renditions.map((_, i) => `v:${i},a:${i}`).join(' '),
          ...common.hls,
          ...(version === 'a' ? ['-master_pl_name', 'index.m3u8'] : []),
          '-hls_segment_filename', join(workDir, `${runId}_%05d.%v.${version}.ts`),
          join(workDir, version === 'a' ? 'index_%v.m3u8' : versionBPlaylist('index_%v.m3u8')),
        ]
      : [...common.hls, '-hls_segment_filename', join(workDir, `${runId}_%05d.${version}.ts`), join(workDir, version === 'a' ? 'index.m3u8' : versionBPlaylist('index.m3u8'))];
    // A ladder's audio is encoded (as unmarked ladders do), identically for both; a single rendition's is copied.
    const audio = ladder ? ['-c:a', 'aac', '-b:a', '128k'] : ['-c:a', 'copy'];
    return [...perRendition, ...common.x264, '-profile:v', ladder ? 'main' : 'high', ...common.keyframes, ...audio, ...names];
  };
  return [...patterns, '-filter_complex', graph, ...output('a'), ...output('b')];
}

const singleOutput = (workDir: string, runId: string) => ['-hls_segment_filename', join(workDir, `${runId}_%05d.ts`), join(workDir, 'index.m3u8')];

/** `-hls-ladder 720:2800,360:800` → renditions; empty string → none. */
export function parseLadder(spec: string): Rendition[] {
  if (spec.trim() === '') return [];
  return spec.split(',').map((rung) => {
    const match = /^\s*(\d+):(\d+)\s*$/.exec(rung);
    if (!match) throw new Error(`ladder rung "${rung}" is not <height>:<video kbps>`);
    const height = Number(match[1]);
    if (height % 2 !== 0) throw new Error(`ladder height ${height} must be even (H.264 4:2:0)`);
    return { height, videoKbps: Number(match[2]) };
  });
}

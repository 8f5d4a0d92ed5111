import { join } from 'node:path';

/** One rung of the optional adaptive ladder: output height and video bitrate. */
export interface Rendition {
  height: number;
  videoKbps: number;
}

export interface PackagingOptions {
  segmentSeconds: number;
  /** Empty: copy the publisher's codecs (the default; no transcoding cost). */
  ladder: readonly Rendition[];
}

/**
 * ffmpeg reads FLV on stdin (fed in-process from the broadcast) and writes
 * HLS into `workDir`. `temp_file` makes every segment and playlist appear by
 * rename, so the uploader never reads a half-written file. Segment names
 * start with the publish id: names are never reused across publishes of the
 * same stream, which lets segments be cached as immutable.
 */
export function ffmpegArgs(workDir: string, publishId: string, options: PackagingOptions): string[] {
  // node-media-server's FLV header always announces audio and video, and for FLV ffmpeg's default analysis
  // window is 90 s: a publisher without audio would get no HLS for that long. 3 s bounds the wait for a
  // missing stream; a stream with both ends the analysis as soon as both have shown up.
  const input = ['-hide_banner', '-loglevel', 'error', '-analyzeduration', '3000000', '-f', 'flv', '-i', 'pipe:0'];
  const hls = [
    '-f', 'hls',
    '-hls_time', String(options.segmentSeconds),
    // The work folder's playlists keep every segment of the publish: they are how the uploader learns of
    // complete segments, and one it has not stored yet must not slide out. Viewers get our playlists.
    '-hls_list_size', '0',
    '-hls_flags', 'temp_file+independent_segments',
    '-hls_segment_type', 'mpegts',
  ];
  if (options.ladder.length === 0) {
    return [
      ...input,
      '-map', '0:v?', '-map', '0:a?', '-c', 'copy',
      ...hls,
      '-hls_segment_filename', join(workDir, `${publishId}_%05d.ts`),
      join(workDir, 'index.m3u8'),
    ];
  }
  const n = options.ladder.length;
  const split = `[0:v]split=${n}${options.ladder.map((_, i) => `[in${i}]`).join('')}`;
  const scales = options.ladder.map((r, i) => `[in${i}]scale=-2:${r.height}[out${i}]`);
  const perRendition = options.ladder.flatMap((r, i) => [
    '-map', `[out${i}]`, '-map', '0:a',
    `-b:v:${i}`, `${r.videoKbps}k`, `-maxrate:v:${i}`, `${r.videoKbps}k`, `-bufsize:v:${i}`, `${r.videoKbps * 2}k`,
  ]);
  return [
    ...input,
    '-filter_complex', [split, ...scales].join(';'),
    ...perRendition,
    '-c:v', 'libx264', '-preset', 'veryfast', '-profile:v', 'main',
    // Keyframes on segment boundaries, so every rendition cuts at the same instants.
    '-force_key_frames', `expr:gte(t,n_forced*${options.segmentSeconds})`, '-sc_threshold', '0',
    '-c:a', 'aac', '-b:a', '128k',
    '-var_stream_map', options.ladder.map((_, i) => `v:${i},a:${i}`).join(' '),
    ...hls,
    '-master_pl_name', 'index.m3u8',
    '-hls_segment_filename', join(workDir, `${publishId}_%v_%05d.ts`),
    join(workDir, 'index_%v.m3u8'),
  ];
}

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

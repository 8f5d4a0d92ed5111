/**
 * Playlist sizes of the whole-show recording, computed with the ingest's own
 * playlist writer and real segment names (`<16-char publish id>_<n>.ts`):
 * the live playlist at the default DVR window (every viewer fetches it once
 * per segment), against the 6-segment live playlist the ingest served before
 * (baseline), and the final VOD playlist and recording index of a 3-hour
 * show. Gzip shows what a compressing CDN sends.
 *   npx tsx bench/recording-playlists.ts
 */
import { gzipSync } from 'node:zlib';
import { renderLivePlaylist, renderVodPlaylist, type Segment } from '../recording/media-playlist';
import { DEFAULT_DVR_WINDOW_SECONDS } from '../recording/recording';
import { median, table } from './lib/stats';

const SHOW_SECONDS = 3 * 3600;

function publishRun(publishId: string, seconds: number, segmentSeconds: number): Segment[] {
  return Array.from({ length: Math.round(seconds / segmentSeconds) }, (_, n) => ({
    uri: `${publishId}_${String(n).padStart(5, '0')}.ts`,
    // ffmpeg's EXTINF varies around the target by a frame or so.
    duration: segmentSeconds + ((n % 3) - 1) * 0.04,
  }));
}

function timeMs(render: () => unknown): number {
  const samples: number[] = [];
  for (let i = 0; i < 21; i++) {
    const started = performance.now();
    render();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

const rows = [];
for (const segmentSeconds of [2, 1]) {
  // A 3-hour show in two parts (one intermission), as the recording holds it.
  const runs = [publishRun('mgq1w2e3r4t5y6u7', SHOW_SECONDS / 2, segmentSeconds), publishRun('mgq9z8x7c6v5b4n3', SHOW_SECONDS / 2, segmentSeconds)];
  const baseline = renderLivePlaylist({ runs, target: segmentSeconds, windowSeconds: 6 * segmentSeconds - 0.5 })!;
  const live = renderLivePlaylist({ runs, target: segmentSeconds, windowSeconds: DEFAULT_DVR_WINDOW_SECONDS })!;
  const vod = renderVodPlaylist(runs);
  const index = JSON.stringify({ version: 1, publishId: 'mgq9z8x7c6v5b4n3', startedAt: new Date().toISOString(), renditions: { 'index.m3u8': runs[1]!.map((s) => [s.uri, s.duration]) } });
  const row = (name: string, text: string, perViewer: boolean) => ({
    segment: `${segmentSeconds} s`,
    playlist: name,
    bytes: Buffer.byteLength(text),
    gzip: gzipSync(text).length,
    'bytes/s per viewer': perViewer ? Math.round(Buffer.byteLength(text) / segmentSeconds) : '-',
    'vs baseline': perViewer ? `${(Buffer.byteLength(text) / Buffer.byteLength(baseline)).toFixed(1)}x` : '-',
  });
  rows.push(row('live, 6 segments (baseline)', baseline, true));
  rows.push(row(`live, DVR window ${DEFAULT_DVR_WINDOW_SECONDS} s (default)`, live, true));
  rows.push(row('VOD, 3-hour show', vod, false));
  rows.push(row('recording index of one 1.5 h part (JSON, rewritten per segment)', index, false));
  console.log(`${segmentSeconds} s segments: rendering the 3-hour VOD playlist takes ${timeMs(() => renderVodPlaylist(runs)).toFixed(2)} ms (median of 21)`);
}
console.log(table(rows));

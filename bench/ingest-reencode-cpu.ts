/**
 * What re-encoding costs the ingest per publisher: the CPU of the ffmpeg that
 * packages one stream when it copies the video (keyframes every second) and
 * when it re-encodes it (keyframes every 250 frames, OBS's default: libx264
 * veryfast with a keyframe every 1 s segment, the publisher's bit rate, audio
 * copied), at 720p30 and 1080p30, and 1080p60 for sizing the task. The publisher copies a pre-encoded clip in a
 * loop (so its own cost stays out), a camera-like picture: a moving test
 * pattern with film grain. Each measurement: WARMUP s after the publish
 * starts, then WINDOW s, alternating copy and re-encode RUNS times; the
 * figures are CPU seconds per wall-clock second as a share of one core, median
 * of the runs, plus our Node process's own share and whether the stream kept
 * real time (media seconds stored per wall-clock second). At 720p30 also a watermarked show (issue 39): the
 * callback answers the publish with a mark pattern, so the packager encodes A and B of every segment (keyframes
 * every second, which would otherwise be copied); its ratio is against the re-encode of the same picture.
 *   npm run bench -- ingest-reencode-cpu       (RUNS=2, WARMUP=12, WINDOW=30; ONLY=1080p60 for one format)
 */
import { cpus } from 'node:os';
import { join } from 'node:path';
import { folderStore, startIngestServer, createLogger } from '../ingest-container/src/index';
import { parseMediaPlaylist } from '../recording/media-playlist';
import { livePlaylistName } from '../recording/recording';
import { httpServer } from '../harness/http-server';
import { benchmark } from './lib/cleanup';
import { median, table } from './lib/stats';
import { makeClip, packagerCpuSeconds, readText, removeTempDirs, sleep, startPublisher, stopProcess, tempDir } from './lib/ingest-support';

const RUNS = Number(process.env.RUNS || 2);
const WARMUP_S = Number(process.env.WARMUP || 12);
const WINDOW_S = Number(process.env.WINDOW || 30);
/** OBS's own bit rates: 2500 kbit/s is its default, 4500 and 6000 what it recommends for 1080p. */
const FORMATS = [
  { name: '720p30', height: 720, fps: 30, videoKbps: 2500 },
  { name: '1080p30', height: 1080, fps: 30, videoKbps: 4500 },
  { name: '1080p60', height: 1080, fps: 60, videoKbps: 6000 },
].filter((format) => format.name.includes(process.env.ONLY ?? ''));
/**
 * A keyframe every second is copied; every 250 frames (8.33 s at 30 fps) against 1 s segments is re-encoded. A clip
 * is a whole number of GOPs, so the keyframes keep their rhythm where it loops.
 */
const MODES = [
  { name: 'copy', gop: (fps: number) => fps, frames: (fps: number) => 16 * fps, watermark: false },
  { name: 're-encode', gop: () => 250, frames: () => 500, watermark: false },
  { name: 'watermarked A+B', gop: (fps: number) => fps, frames: (fps: number) => 16 * fps, watermark: true },
];
/** The watermark is measured where the issue asks for it (its A and B of 1080p60 would not keep real time on a small task). */
const modesOf = (format: { name: string }) => MODES.filter((mode) => !mode.watermark || format.name === '720p30');
/** A pattern's signs as the platform answers them (docs/api.md, "RTMP callback"). */
const SIGNS = '+-+--++-+--+';

interface Window {
  packagerCores: number;
  nodeCores: number;
  /** Media seconds stored per wall-clock second. */
  realTime: number;
}

async function measure(clip: string, watermark: boolean): Promise<Window> {
  const dir = await tempDir('reencode-cpu');
  const platform = await httpServer((body, _req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(body.action === 'publish' && watermark ? { ok: true, watermark: { signs: SIGNS } } : { ok: true }));
  });
  const server = await startIngestServer({
    listen: { host: '127.0.0.1', port: 0 },
    auth: { mode: 'callback', url: platform.url, timeoutMs: 2_000 },
    hls: { store: folderStore(dir), ffmpegPath: process.env.FFMPEG_PATH || 'ffmpeg', segmentSeconds: 1, ladder: [] },
    publishGraceMs: 0,
    log: createLogger('error'),
  });
  const stream = `cpu${Date.now().toString(36)}`;
  const publisher = startPublisher(`${server.url}/live/${stream}?token=t`, { file: clip });
  const playlist = join(dir, 'streams', stream, livePlaylistName('index.m3u8', 1));
  const mediaSeconds = async () => parseMediaPlaylist((await readText(playlist)) ?? '').reduce((sum, s) => sum + s.duration, 0);
  try {
    await sleep(WARMUP_S * 1000);
    const [mediaBefore, packagerBefore, nodeBefore, started] = [await mediaSeconds(), await packagerCpuSeconds(), process.cpuUsage(), performance.now()];
    await sleep(WINDOW_S * 1000);
    const [mediaAfter, packagerAfter, node, wall] = [await mediaSeconds(), await packagerCpuSeconds(), process.cpuUsage(nodeBefore), (performance.now() - started) / 1000];
    return { packagerCores: (packagerAfter - packagerBefore) / wall, nodeCores: (node.user + node.system) / 1e6 / wall, realTime: (mediaAfter - mediaBefore) / wall };
  } finally {
    await stopProcess(publisher);
    await server.close();
    await platform.close();
  }
}

await benchmark(async (defer) => {
  defer(removeTempDirs);
  const rows: Record<string, string | number>[] = [];
  const clips = await tempDir('reencode-clips');
  for (const format of FORMATS) {
    const modes = modesOf(format);
    const windows = new Map<string, Window[]>(modes.map((mode) => [mode.name, []]));
    const clipOf = new Map(
      modes.map((mode) => [
        mode.name,
        makeClip(clips, mode.frames(format.fps) / format.fps, { height: format.height, fps: format.fps, videoKbps: format.videoKbps, gop: mode.gop(format.fps), preset: 'veryfast', noise: true }),
      ]),
    );
    for (let run = 0; run < RUNS; run++) {
      for (const mode of modes) {
        windows.get(mode.name)!.push(await measure(clipOf.get(mode.name)!, mode.watermark));
        process.stderr.write('.');
      }
    }
    const copy = median(windows.get('copy')!.map((w) => w.packagerCores));
    const reencode = median(windows.get('re-encode')!.map((w) => w.packagerCores));
    for (const mode of modes) {
      const measured = windows.get(mode.name)!;
      const packager = median(measured.map((w) => w.packagerCores));
      rows.push({
        format: `${format.name}, ${format.videoKbps} kbit/s`,
        video: mode.name,
        'packager % of a core': packager * 100,
        'more than copy': mode.name === 'copy' ? '-' : `+${((packager - copy) * 100).toFixed(1)} %`,
        '× re-encode': mode.name === 'copy' ? '-' : (packager / reencode).toFixed(2),
        'node % of a core': median(measured.map((w) => w.nodeCores)) * 100,
        'real time': Math.min(...measured.map((w) => w.realTime)),
      });
    }
  }
  process.stderr.write('\n');
  console.log(`ffmpeg packager CPU per publisher (median of ${RUNS} windows of ${WINDOW_S} s), 1 s segments; ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores\n`);
  console.log(table(rows));
});

/**
 * A watermarked recording as the ingest leaves it, made without an ingest (fast): a 360p show marked
 * A and B from one decode (split, grainmerge/grainextract with the event's pattern), cut at its 1 s
 * keyframes, each segment's fingerprint, and the part's index, put in a media bucket; and a viewer's
 * copy spliced from its A/B sequence and restreamed. Used by the trace CLI's test and its benchmark.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { markBit, markKeyOf, markPattern, patternFrameYuv420, patternSignsText } from '../functions/domain/watermark';
import { segmentStem } from '../recording/part-record';

const exec = promisify(execFile);

async function ffmpeg(...args: string[]): Promise<void> {
  await exec('ffmpeg', ['-hide_banner', '-v', 'error', '-y', ...args], { maxBuffer: 16 * 1024 * 1024 });
}

export const PART = 'p1';
const stem = (n: number) => segmentStem(PART, n);

export interface WatermarkedRecording {
  dir: string;
  seconds: number;
  markKey: Buffer;
  segment(version: 'A' | 'B', n: number): string;
}

/** A and B of `seconds` of a Mandelbrot zoom (it never repeats, as a show does not: testsrc2 repeats every 12 s at 16×9). */
export async function markedShow(dir: string, secret: string, eventId: string, seconds: number): Promise<WatermarkedRecording> {
  const markKey = markKeyOf(secret, eventId);
  const pattern = join(dir, 'pattern.yuv');
  await writeFile(pattern, patternFrameYuv420(markPattern(markKey), 640, 360));
  const encode = ['-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-pix_fmt', 'yuv420p', '-b:v', '1200k', '-force_key_frames', 'expr:gte(t,n_forced*1)', '-sc_threshold', '0', '-an', '-f', 'mpegts'];
  await ffmpeg(
    '-f', 'lavfi', '-i', `mandelbrot=size=160x90:rate=30,trim=duration=${seconds},scale=640:360,noise=alls=8:allf=t`,
    '-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-video_size', '640x360', '-framerate', '30', '-i', pattern,
    '-filter_complex', '[1:v]loop=loop=-1:size=1,split[p1][p2];[0:v]split[x1][x2];[x1][p1]blend=all_mode=grainmerge:shortest=1[a];[x2][p2]blend=all_mode=grainextract:shortest=1[b]',
    '-map', '[a]', ...encode, join(dir, 'A.ts'), '-map', '[b]', ...encode, join(dir, 'B.ts'),
  );
  for (const version of ['A', 'B']) {
    await ffmpeg('-i', join(dir, `${version}.ts`), '-c', 'copy', '-f', 'segment', '-segment_time', '1', '-reset_timestamps', '0', '-segment_format', 'mpegts', join(dir, `${version}_%03d.ts`));
  }
  return { dir, seconds, markKey, segment: (version, n) => join(dir, `${version}_${String(n).padStart(3, '0')}.ts`) };
}

/** The media bucket as the ingest leaves it: A and B per segment, A's fingerprint, the part's index. */
export async function uploadRecording(client: S3Client, bucket: string, eventId: string, recording: WatermarkedRecording): Promise<void> {
  const put = (key: string, body: Buffer | string) => client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  const list: [string, number][] = [];
  for (let n = 0; n < recording.seconds; n++) {
    await put(`streams/${eventId}/${stem(n)}.0.a.ts`, await readFile(recording.segment('A', n)));
    await put(`streams/${eventId}/${stem(n)}.0.b.ts`, await readFile(recording.segment('B', n)));
    const print = join(recording.dir, `print_${n}.fp`);
    await ffmpeg('-i', recording.segment('A', n), '-vf', 'fps=10,scale=16:9:flags=area,format=gray', '-f', 'rawvideo', print);
    await put(`recordings/${eventId}/fingerprints/${stem(n)}.fp`, await readFile(print));
    list.push([`${stem(n)}.0.w.ts`, 1]);
  }
  const index = {
    version: 1,
    publishId: PART,
    startedAt: '2026-11-28T20:00:00.000Z',
    master: '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1400000,RESOLUTION=640x360\nindex_0-live1.m3u8\n',
    renditions: { 'index_0.m3u8': list },
    watermark: { signs: patternSignsText(markPattern(recording.markKey)) },
  };
  await put(`recordings/${eventId}/001764360000000-${PART}.json`, JSON.stringify(index));
}

/**
 * The viewer's copy: its segments spliced as served, then restreamed from `fromSeconds` on for `seconds`:
 * a 3 % crop, 25 fps, 320×180 at CRF 30.
 */
export async function leakedCopy(recording: WatermarkedRecording, sessionId: string, cut: { fromSeconds: number; seconds: number; file: string }): Promise<string> {
  const lines = Array.from({ length: recording.seconds }, (_, n) => `file '${recording.segment(markBit(recording.markKey, sessionId, { part: PART, index: n }) === 0 ? 'A' : 'B', n)}'`);
  const served = join(recording.dir, 'served.ts');
  await writeFile(join(recording.dir, 'served.txt'), lines.join('\n'));
  await ffmpeg('-f', 'concat', '-safe', '0', '-i', join(recording.dir, 'served.txt'), '-c', 'copy', served);
  const copy = join(recording.dir, cut.file);
  const crop = 'crop=trunc(iw*0.97/2)*2:trunc(ih*0.97/2)*2:trunc(iw*0.012):trunc(ih*0.018)';
  await ffmpeg('-ss', String(cut.fromSeconds), '-i', served, '-t', String(cut.seconds), '-vf', `${crop},fps=25,scale=320:180`, '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '30', '-an', copy);
  return copy;
}

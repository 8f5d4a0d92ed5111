/**
 * Does the forensic A/B mark (docs/watermark-design.md) stay invisible and survive a restreamer?
 * A 720p30 camera-like clip (moving test pattern with film grain; GRAIN=0 for flat areas without)
 * is marked at each amplitude: A and B from one ffmpeg, as the ingest's top rung (libx264
 * veryfast, 2800 kbit/s, a keyframe every 1 s segment); PSNR and SSIM between A and B, PSNR of A
 * against the same encode unmarked, and the CPU of making both against that unmarked encode.
 * One viewer's copy is spliced from A and B by its session's bits, then attacked as a restreamer
 * would (320×180 CRF 30; plus a 3 % crop; plus 25 fps; the same at CRF 36 as a stress), and each
 * segment's bit is read back with the non-blind reader (crop found by the search). Prints, per
 * amplitude and attack: bit errors, erasures, the mean strength of the mark, whether the
 * accusation among 1,000 sessions names the viewer, the shortest start of the copy that does (the
 * worst of VIEWERS viewers), and the copy a million sessions would need at the measured error rate.
 *   npx tsx bench/watermark-robustness.ts       (SECONDS=40, AMPLITUDES=2,3,4, GRAIN=1, VIEWERS=1)
 */
import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  accuse,
  findPlacement,
  markPattern,
  patternFrameYuv420,
  readBit,
  segmentsNeeded,
  sessionMarks,
  type LumaFrame,
  type MarkBit,
} from '../functions/domain/watermark';
import { benchmark } from './lib/cleanup';
import { removeTempDirs, tempDir } from './lib/ingest-support';
import { table } from './lib/stats';
import { cutSegments, encodeVersions, ffmpeg, segmentMeans, similarity, spliceDelivered, TOP_RUNG } from './lib/watermark-media';

const SECONDS = Number(process.env.SECONDS || 40);
const AMPLITUDES = (process.env.AMPLITUDES || '2,3,4').split(',').map(Number);
const GRAIN = process.env.GRAIN !== '0';
const KEY = Buffer.from('the benchmark event mark key 32b');
/** Viewers whose copies are made and traced (the issue asks for the worst of 10). */
const VIEWERS = Number(process.env.VIEWERS || 1);
const restream = (crf = 30) => ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', String(crf), '-an'];
/** A crop of 3 % of width and height, off centre. */
const CROP = 'crop=trunc(iw*0.97/2)*2:trunc(ih*0.97/2)*2:trunc(iw*0.012):trunc(ih*0.018)';
const ATTACKS: { name: string; filter: string | null; crf?: number }[] = [
  { name: 'untouched', filter: null },
  { name: '320x180 CRF 30', filter: 'scale=320:180' },
  { name: '3 % crop, 320x180 CRF 30', filter: `${CROP},scale=320:180` },
  { name: '3 % crop, 25 fps, 320x180 CRF 30', filter: `${CROP},fps=25,scale=320:180` },
  { name: 'same at CRF 36 (stress)', filter: `${CROP},fps=25,scale=320:180`, crf: 36 },
];

const moments = Array.from({ length: SECONDS }, (_, index) => ({ part: 'bench', index }));
const crowd = Array.from({ length: 1000 }, (_, i) => `session-${i}`);
/** Every session's bits, computed once: the accusation is run on every prefix of every copy. */
const crowdBits = new Map(crowd.map((id) => [id, moments.map(sessionMarks(KEY, id))] as const));
const viewers = crowd.slice(0, VIEWERS);

async function makeSource(dir: string): Promise<string> {
  const source = join(dir, 'source.mkv');
  // Near-lossless, so what A and B differ by is the mark and their own encodes, not the source's.
  await ffmpeg(['-f', 'lavfi', '-i', `testsrc2=size=1280x720:rate=30${GRAIN ? ',noise=alls=8:allf=t' : ''}`, '-t', String(SECONDS),
    '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '8', '-pix_fmt', 'yuv420p', source], dir);
  return source;
}

interface CopyResult {
  errors: number;
  erasures: number;
  meanStrength: number;
  named: boolean;
  /** The shortest start of the copy (seconds) that already names the viewer; null if none does. */
  shortest: number | null;
  scale: number;
}

/** Reads every segment of one attacked copy and traces it, whole and by its prefixes. */
function traceCopy(viewer: string, copy: LumaFrame[], a: LumaFrame[], b: LumaFrame[], amplitude: number): CopyResult {
  const bits = crowdBits.get(viewer)!;
  const pattern = markPattern(KEY, { amplitude });
  const middle = (i: number): LumaFrame => ({ ...a[i]!, data: a[i]!.data.map((v, j) => (v + b[i]!.data[j]!) / 2) });
  const pairs = [0, 5, 10, 15, 20, 25].filter((i) => i < copy.length).map((i) => ({ copy: copy[i]!, original: middle(i) }));
  const placement = findPlacement({ pairs });
  const readings = copy.map((frame, i) => readBit({ copy: frame, a: a[i]!, b: b[i]! }, pattern, placement));
  const read: (MarkBit | null)[] = readings.map((reading) => reading.bit);
  const traceOf = (length: number) => accuse({ copy: read.slice(0, length), sessions: crowd, bitOf: (id, i) => crowdBits.get(id)![i]! });
  let shortest: number | null = null;
  for (let length = 1; length <= read.length && shortest === null; length++) if (traceOf(length).sessionId === viewer) shortest = length;
  return {
    errors: read.filter((bit, i) => bit !== null && bit !== bits[i]).length,
    erasures: read.filter((bit) => bit === null).length,
    meanStrength: readings.reduce((sum, r, i) => sum + r.strength * (bits[i] === 0 ? 1 : -1), 0) / readings.length,
    named: traceOf(read.length).sessionId === viewer,
    shortest,
    scale: placement.scale,
  };
}

async function attack(delivered: string, how: (typeof ATTACKS)[number], dir: string): Promise<string> {
  if (how.filter === null) return delivered;
  const out = join(dir, `${basename(delivered, '.ts')}-${how.name.replace(/[^a-z0-9]+/gi, '-')}.mp4`);
  await ffmpeg(['-i', delivered, '-vf', how.filter, ...restream(how.crf), out], dir);
  return out;
}

/** A and B at one amplitude, their likeness, and each segment's mean picture for the reader. */
async function makeVersions(source: string, amplitude: number, dir: string) {
  const patternFile = join(dir, `pattern-${amplitude}.yuv`);
  await writeFile(patternFile, patternFrameYuv420(markPattern(KEY, { amplitude }), 1280, 720));
  const run = await encodeVersions(source, patternFile, '1280x720', dir);
  const ab = await similarity(join(dir, 'A.ts'), join(dir, 'B.ts'), dir);
  const plain = await similarity(join(dir, 'A.ts'), join(dir, 'plain.ts'), dir);
  await cutSegments(join(dir, 'A.ts'), 'A', dir);
  await cutSegments(join(dir, 'B.ts'), 'B', dir);
  const a = await segmentMeans(join(dir, 'A.ts'), 320, 180, SECONDS, dir);
  const b = await segmentMeans(join(dir, 'B.ts'), 320, 180, SECONDS, dir);
  return { cpuSeconds: run.cpuSeconds, ab, plain, a, b };
}

async function oneAmplitude(source: string, amplitude: number, dir: string): Promise<Record<string, string | number>[]> {
  const versions = await makeVersions(source, amplitude, dir);
  const results = new Map<string, CopyResult[]>(ATTACKS.map((how) => [how.name, []]));
  for (const viewer of viewers) {
    const delivered = await spliceDelivered(crowdBits.get(viewer)!, dir, viewer);
    for (const how of ATTACKS) {
      const copy = await segmentMeans(await attack(delivered, how, dir), 160, 90, SECONDS, dir);
      results.get(how.name)!.push(traceCopy(viewer, copy, versions.a, versions.b, amplitude));
    }
  }
  return ATTACKS.map((how) => {
    const all = results.get(how.name)!;
    const errors = all.reduce((sum, r) => sum + r.errors, 0);
    const read = all.reduce((sum, r) => sum + SECONDS - r.erasures, 0);
    const needed = segmentsNeeded({ sessions: 1_000_000, agreement: read === 0 ? 0.5 : 1 - errors / read });
    const shortest = all.map((r) => r.shortest);
    return {
      amplitude, 'PSNR A/B dB': versions.ab.psnrY, 'SSIM A/B': versions.ab.ssim.toFixed(4), 'PSNR A/unmarked': versions.plain.psnrY,
      'A+B CPU s': versions.cpuSeconds, attack: how.name, 'found scale': all.map((r) => r.scale.toFixed(3)).join(' '),
      'bit errors': `${errors}/${read}`, erasures: all.reduce((sum, r) => sum + r.erasures, 0),
      strength: all.reduce((sum, r) => sum + r.meanStrength, 0) / all.length,
      [`named (of ${all.length})`]: all.filter((r) => r.named).length,
      'worst shortest s': shortest.includes(null) ? 'never' : Math.max(...(shortest as number[])),
      's for 1M sessions': needed === null ? '> 5000' : Math.ceil(needed / (read / (SECONDS * all.length))),
    };
  });
}

await benchmark(async (defer) => {
  defer(removeTempDirs);
  const dir = await tempDir('watermark');
  const source = await makeSource(dir);
  const plain = await ffmpeg(['-i', source, ...TOP_RUNG, join(dir, 'plain.ts')], dir);
  console.log(`source: ${SECONDS} s 720p30${GRAIN ? ' with grain' : ' without grain'}; one unmarked top-rung encode: ${plain.cpuSeconds.toFixed(1)} CPU s`);
  const rows: Record<string, string | number>[] = [];
  for (const amplitude of AMPLITUDES) rows.push(...(await oneAmplitude(source, amplitude, dir)));
  console.log(table(rows));
  console.log(`CPU ratio marked (A+B, one decode) / unmarked: ${rows.filter((_, i) => i % ATTACKS.length === 0).map((row) => (Number(row['A+B CPU s']) / plain.cpuSeconds).toFixed(2)).join(', ')} (per amplitude)`);
});

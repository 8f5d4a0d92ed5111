import { describe, expect, it } from 'vitest';
import { alignedSegments, alignWindows, FP_HEIGHT, FP_SIZE, FP_WIDTH, timelineOf, type RecordedSegment } from '../../scripts/trace/align';

/** A seeded generator, so a failure can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 2 ** 32;
  };
}

/** A show's picture at 16×9: a few soft blobs that drift, and a new scene every few seconds. */
function show(frames: number, seed: number): Float32Array[] {
  const next = random(seed);
  const out: Float32Array[] = [];
  let blobs = [] as { x: number; y: number; dx: number; dy: number; level: number }[];
  let background = 0;
  for (let f = 0; f < frames; f++) {
    if (f % 47 === 0) {
      background = 40 + 120 * next();
      blobs = Array.from({ length: 3 }, () => ({ x: next() * 16, y: next() * 9, dx: next() - 0.5, dy: (next() - 0.5) / 2, level: 200 * next() - 100 }));
    }
    const frame = new Float32Array(FP_SIZE);
    for (let y = 0; y < FP_HEIGHT; y++) {
      for (let x = 0; x < FP_WIDTH; x++) {
        frame[y * FP_WIDTH + x] = background + blobs.reduce((sum, b) => sum + b.level * Math.exp(-((x - b.x) ** 2 + (y - b.y) ** 2) / 8), 0);
      }
    }
    for (const b of blobs) (b.x += b.dx), (b.y += b.dy);
    out.push(frame);
  }
  return out;
}

const bytes = (frames: Float32Array[]) => {
  const out = new Uint8Array(frames.length * FP_SIZE);
  frames.forEach((frame, f) => frame.forEach((v, i) => (out[f * FP_SIZE + i] = Math.max(0, Math.min(255, Math.round(v))))));
  return out;
};

/** What a restreamer's copy looks like at 16×9: a 3 % crop (bilinear), darker and flatter, with coding noise. */
function restreamed(frames: Float32Array[], seed: number): Float32Array[] {
  const noise = random(seed);
  const scale = 0.97;
  return frames.map((frame) => {
    const out = new Float32Array(FP_SIZE);
    for (let y = 0; y < FP_HEIGHT; y++) {
      for (let x = 0; x < FP_WIDTH; x++) {
        const fx = Math.min(FP_WIDTH - 1, 0.2 + x * scale);
        const fy = Math.min(FP_HEIGHT - 1, 0.1 + y * scale);
        const x0 = Math.floor(fx), y0 = Math.floor(fy), x1 = Math.min(FP_WIDTH - 1, x0 + 1), y1 = Math.min(FP_HEIGHT - 1, y0 + 1);
        const at = (xx: number, yy: number) => frame[yy * FP_WIDTH + xx]!;
        const v = (at(x0, y0) * (x1 - fx + (x1 === x0 ? 1 : 0)) + at(x1, y0) * (fx - x0)) * (y1 - fy + (y1 === y0 ? 1 : 0)) + (at(x0, y1) * (x1 - fx + (x1 === x0 ? 1 : 0)) + at(x1, y1) * (fx - x0)) * (fy - y0);
        out[y * FP_WIDTH + x] = 0.8 * v + 15 + (noise() - 0.5) * 12;
      }
    }
    return out;
  });
}

/** Two parts of 1 s segments (10 frames each), 120 s and 90 s. */
function recording() {
  const pictures = show(2100, 7);
  const segments: RecordedSegment[] = [];
  for (let s = 0; s < 210; s++) {
    const part = s < 120 ? 'partA' : 'partB';
    segments.push({ part, index: s < 120 ? s : s - 120, seconds: 1, fingerprint: bytes(pictures.slice(s * 10, s * 10 + 10)) });
  }
  return { pictures, segments, timeline: timelineOf(segments) };
}

describe('aligning a copy by its fingerprint', () => {
  it('finds where a cropped, re-levelled, noisy copy starts mid-segment, and maps each segment it shows', () => {
    const { pictures, timeline } = recording();
    // The copy starts 43.7 s into the show and runs 40 s.
    const copy = bytes(restreamed(pictures.slice(437, 837), 11));
    const matches = alignWindows(copy, timeline);
    expect(matches.map((m) => m.timelineStart)).toEqual([437, 537, 637, 737]);
    for (const m of matches) expect(m.score).toBeGreaterThan(0.9);
    const segments = alignedSegments(matches, timeline);
    // Segments 44..82 wholly; 83's read window (frames 832..838) for 5 of its 7 frames; 43's (432..438) for 2: left out.
    expect(segments.map((s) => s.index)).toEqual(Array.from({ length: 40 }, (_, i) => 44 + i));
    expect(segments.at(-1)!.copyFrames).toEqual([395, 396, 397, 398, 399]);
    const first = segments[0]!;
    // Segment 44's read window is frames 442..448 of the show: copy frames 5..11.
    expect(first.copyFrames).toEqual([5, 6, 7, 8, 9, 10, 11]);
  });

  it('aligns piece by piece across a cut and across two parts, each segment once', () => {
    const { pictures, timeline } = recording();
    // 20 s of part A's end, then a cut of 6 s skipped, then into part B.
    const copy = bytes(restreamed([...pictures.slice(1000, 1200), ...pictures.slice(1260, 1460)], 12));
    const segments = alignedSegments(alignWindows(copy, timeline), timeline);
    const names = segments.map((s) => `${s.part}.${s.index}`);
    expect(names).toContain('partA.100');
    expect(names).toContain('partA.119');
    expect(names).not.toContain('partB.2');
    expect(names).toContain('partB.6');
    expect(names).toContain('partB.25');
    expect(names).not.toContain('partB.26');
    expect(new Set(names).size).toBe(names.length);
    const b10 = segments.find((s) => s.part === 'partB' && s.index === 10)!;
    // Part B's segment 10 is show frames 1300..1309; the copy shows frame 1260 at its frame 200.
    expect(b10.copyFrames).toEqual([242, 243, 244, 245, 246, 247, 248]);
  });

  it('keeps a copy of content that loops in one piece: among tied windows, the one that continues the previous', () => {
    // A 12 s loop, as ffmpeg's testsrc2 is at 16×9: every window matches 12 s earlier or later as well.
    const loop = show(120, 21);
    const grain = random(22);
    // Each pass of the recording with its own grain; the copy's grain is gone (re-encoded away): every pass ties but for the grain.
    const pictures = Array.from({ length: 2100 }, (_, f) => loop[f % 120]!.map((v) => v + (grain() - 0.5) * 6));
    const clean = Array.from({ length: 2100 }, (_, f) => loop[f % 120]!);
    const segments: RecordedSegment[] = Array.from({ length: 210 }, (_, s) => ({ part: 'loop', index: s, seconds: 1, fingerprint: bytes(pictures.slice(s * 10, s * 10 + 10)) }));
    const timeline = timelineOf(segments);
    const matches = alignWindows(bytes(restreamed(clean.slice(437, 1037), 14)), timeline);
    expect(matches).toHaveLength(6);
    for (let i = 1; i < matches.length; i++) expect(matches[i]!.timelineStart - matches[i - 1]!.timelineStart).toBe(100);
    const indexes = alignedSegments(matches, timeline).map((s) => s.index);
    expect(indexes).toEqual(Array.from({ length: indexes.length }, (_, i) => indexes[0]! + i));
  });

  it('aligns nothing of a video made elsewhere', () => {
    const { timeline } = recording();
    const elsewhere = bytes(restreamed(show(400, 99), 13));
    expect(alignWindows(elsewhere, timeline, 0.9)).toEqual([]);
    const matches = alignWindows(elsewhere, timeline);
    for (const m of matches) expect(m.score).toBeLessThan(0.9);
  });
});

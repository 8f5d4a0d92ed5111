import { createHmac } from 'node:crypto';

/**
 * The mark itself: a faint, smooth luma pattern P added to version A of every segment and
 * subtracted from version B. A grid of cells, each a raised bump sin(πu)·sin(πv) of sign ±1: it
 * has almost no energy above a few cycles per frame, so downscaling to a quarter of the pixels, CRF 30
 * (which drops fine detail first), a change of frame rate (every frame carries the same P) and a
 * small crop (the tracer finds the crop) all leave it. Half the cells are + and half −, so P has no
 * mean and a restreamer's brightness change cannot look like a bit.
 */
export interface MarkPattern {
  columns: number;
  rows: number;
  /** Peak offset in 8-bit luma levels (A is X + P, B is X − P, so they differ by up to twice this). */
  amplitude: number;
  /** One sign per cell, row by row. */
  signs: readonly (1 | -1)[];
}

/** Amplitude 2: no bit error at 320×180 CRF 30 in the benchmark, hardly visible (docs/watermark-design.md). */
export const DEFAULT_PATTERN = { columns: 4, rows: 3, amplitude: 2 };

/** The event's pattern, from its mark key: the tracer rebuilds exactly what the ingest embedded. */
export function markPattern(markKey: Uint8Array, shape: Partial<Omit<MarkPattern, 'signs'>> = {}): MarkPattern {
  const { columns, rows, amplitude } = { ...DEFAULT_PATTERN, ...shape };
  const cells = columns * rows;
  const signs: (1 | -1)[] = Array.from({ length: cells }, (_, i) => (i < cells / 2 ? 1 : -1));
  // A keyed Fisher–Yates shuffle keeps the halves balanced; the small modulo bias does not matter here.
  const bytes = createHmac('sha256', markKey).update('wm1.pattern').digest();
  for (let i = cells - 1; i > 0; i--) {
    const j = bytes.readUInt16BE((2 * i) % 30) % (i + 1);
    [signs[i], signs[j]] = [signs[j]!, signs[i]!];
  }
  return { columns, rows, amplitude, signs };
}

/** P at a point of the frame, u and v from 0 to 1 across and down. */
export function patternAt(pattern: MarkPattern, u: number, v: number): number {
  const x = Math.min(Math.max(u, 0), 0.999999) * pattern.columns;
  const y = Math.min(Math.max(v, 0), 0.999999) * pattern.rows;
  const sign = pattern.signs[Math.floor(y) * pattern.columns + Math.floor(x)]!;
  return pattern.amplitude * sign * Math.sin(Math.PI * (x % 1)) * Math.sin(Math.PI * (y % 1));
}

/** P sampled at the pixel centres of a width × height picture. */
export function patternField(pattern: MarkPattern, width: number, height: number): Float32Array {
  const field = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) field[y * width + x] = patternAt(pattern, (x + 0.5) / width, (y + 0.5) / height);
  }
  return field;
}

/**
 * One raw yuv420p frame for ffmpeg's `blend`: luma 128 + P (rounded), chroma 128. Against it,
 * `grainmerge` gives X + P (version A) and `grainextract` X − P (version B), leaving colour alone.
 * Raw yuv and not an image: a PNG's grey would go through a full-to-limited range conversion and
 * shift every level.
 */
export function patternFrameYuv420(pattern: MarkPattern, width: number, height: number): Buffer {
  const field = patternField(pattern, width, height);
  const frame = Buffer.alloc(width * height * 1.5, 128);
  for (let i = 0; i < field.length; i++) frame[i] = Math.round(128 + field[i]!);
  return frame;
}

/** The signs as the platform hands them to the ingest (`+-+…`, row by row): the ingest never holds the mark key. */
export function patternSignsText(pattern: Pick<MarkPattern, 'signs'>): string {
  return pattern.signs.map((sign) => (sign > 0 ? '+' : '-')).join('');
}

/** The pattern of the signs' text, in the default grid and amplitude; null when the text is not one sign per cell. */
export function patternFromSigns(text: string): MarkPattern | null {
  const cells = DEFAULT_PATTERN.columns * DEFAULT_PATTERN.rows;
  if (!new RegExp(`^[+-]{${cells}}$`).test(text)) return null;
  return { ...DEFAULT_PATTERN, signs: [...text].map((c) => (c === '+' ? 1 : -1)) };
}

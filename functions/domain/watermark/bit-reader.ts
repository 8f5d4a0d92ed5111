import type { MarkBit } from './mark-bit';
import { patternAt, type MarkPattern } from '../../../recording/watermark-pattern';

/**
 * Reading one bit from a copy, non-blind: the tracer holds the recording's own A and B of the
 * segment, so it subtracts the picture and keeps what is left: +P (A), −P (B), or too little (an
 * erasure). Works on the segment's mean luma at a small size: P is smooth and the same on every
 * frame, while coding noise and motion average out.
 */
export interface LumaFrame {
  width: number;
  height: number;
  /** Row by row, 8-bit levels. */
  data: Float32Array;
}

/** Where the copy's picture lies in the original's, in fractions of the original's width and height. */
export interface Placement {
  scale: number;
  left: number;
  top: number;
}

export const WHOLE_FRAME: Placement = { scale: 1, left: 0, top: 0 };

/** The original's picture over the placement's region, bilinear, at width × height. */
export function sampleRegion(frame: LumaFrame, placement: Placement, width: number, height: number): Float32Array {
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    const fy = clamp((placement.top + (placement.scale * (y + 0.5)) / height) * frame.height - 0.5, 0, frame.height - 1);
    const y0 = Math.floor(fy);
    const y1 = Math.min(y0 + 1, frame.height - 1);
    const wy = fy - y0;
    for (let x = 0; x < width; x++) {
      const fx = clamp((placement.left + (placement.scale * (x + 0.5)) / width) * frame.width - 0.5, 0, frame.width - 1);
      const x0 = Math.floor(fx);
      const x1 = Math.min(x0 + 1, frame.width - 1);
      const wx = fx - x0;
      const top = frame.data[y0 * frame.width + x0]! * (1 - wx) + frame.data[y0 * frame.width + x1]! * wx;
      const bottom = frame.data[y1 * frame.width + x0]! * (1 - wx) + frame.data[y1 * frame.width + x1]! * wx;
      out[y * width + x] = top * (1 - wy) + bottom * wy;
    }
  }
  return out;
}

/** The mean of each box of a picture: the copy brought to the working size without aliasing. */
export function boxDownscale(frame: LumaFrame, width: number, height: number): Float32Array {
  const sums = new Float32Array(width * height);
  const counts = new Float32Array(width * height);
  for (let y = 0; y < frame.height; y++) {
    const row = Math.min(height - 1, Math.floor((y * height) / frame.height));
    for (let x = 0; x < frame.width; x++) {
      const cell = row * width + Math.min(width - 1, Math.floor((x * width) / frame.width));
      sums[cell]! += frame.data[y * frame.width + x]!;
      counts[cell]! += 1;
    }
  }
  return sums.map((sum, i) => sum / counts[i]!);
}

/** Least squares copy ≈ gain × reference + offset: undoes a restreamer's change of brightness or contrast. */
export function fitLevels(copy: Float32Array, reference: Float32Array): { gain: number; offset: number; residual: number } {
  const n = copy.length;
  let sc = 0, sr = 0, srr = 0, src = 0, scc = 0;
  for (let i = 0; i < n; i++) {
    sc += copy[i]!;
    sr += reference[i]!;
    srr += reference[i]! * reference[i]!;
    src += reference[i]! * copy[i]!;
    scc += copy[i]! * copy[i]!;
  }
  const varR = srr - (sr * sr) / n;
  const gain = varR > 1e-9 ? (src - (sr * sc) / n) / varR : 1;
  const offset = (sc - gain * sr) / n;
  // Σ(c − g·r − o)², expanded, so the search does not need a second pass.
  const residual = scc - 2 * gain * src - 2 * offset * sc + gain * gain * srr + 2 * gain * offset * sr + n * offset * offset;
  return { gain, offset, residual };
}

export interface SegmentPictures {
  /** The copy's mean luma over the segment, at the copy's own size. */
  copy: LumaFrame;
  /** The recording's version A and B of the same segment (any size: both are sampled). */
  a: LumaFrame;
  b: LumaFrame;
}

export interface BitReading {
  bit: MarkBit | null;
  /** The mark found, as a share of the pattern: about +1 for A, −1 for B, near 0 when it is gone. */
  strength: number;
}

/** Working size: P has a few cells per frame, so 80 × 45 samples carry all of it. */
export const WORK_WIDTH = 80;
export const WORK_HEIGHT = 45;

/**
 * The bit of one segment: fit the copy to the mean of A and B at the placement, project what is
 * left onto P (as the copy sees it), and divide by the gain. |strength| under `erasureBelow` is an
 * erasure: better no bit than a coin flip counted as evidence.
 */
export function readBit(pictures: SegmentPictures, pattern: MarkPattern, placement: Placement, erasureBelow = 0.1): BitReading {
  const copy = boxDownscale(pictures.copy, WORK_WIDTH, WORK_HEIGHT);
  const a = sampleRegion(pictures.a, placement, WORK_WIDTH, WORK_HEIGHT);
  const b = sampleRegion(pictures.b, placement, WORK_WIDTH, WORK_HEIGHT);
  const middle = a.map((value, i) => (value + b[i]!) / 2);
  const { gain, offset } = fitLevels(copy, middle);
  let projection = 0;
  let energy = 0;
  for (let y = 0; y < WORK_HEIGHT; y++) {
    for (let x = 0; x < WORK_WIDTH; x++) {
      const p = patternAt(pattern, placement.left + (placement.scale * (x + 0.5)) / WORK_WIDTH, placement.top + (placement.scale * (y + 0.5)) / WORK_HEIGHT);
      const i = y * WORK_WIDTH + x;
      projection += (copy[i]! - gain * middle[i]! - offset) * p;
      energy += p * p;
    }
  }
  const strength = energy > 0 && gain > 1e-6 ? projection / (gain * energy) : 0;
  return { bit: Math.abs(strength) < erasureBelow ? null : strength > 0 ? 0 : 1, strength };
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

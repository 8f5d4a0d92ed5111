import type { LumaFrame } from './bit-reader';

/**
 * A segment's picture for the bit reader: its mean luma over the middle of the segment. Videos are
 * sampled at 10 frames per second from their first frame (ffmpeg `setpts=PTS-STARTPTS,fps=10`), so a
 * copy at another frame rate reads the same; only [start + 0.15, start + 0.85] of a segment is used,
 * away from the cuts, where a copy's timing may be off by a frame or two.
 */
export const SAMPLE_FPS = 10;
export const READ_FROM = 0.15;
export const READ_TO = 0.85;

/** The sample frames (at `SAMPLE_FPS`) inside a segment's read window, first and last inclusive. */
export function readWindowFrames(startSeconds: number, seconds: number): { first: number; last: number } {
  return { first: Math.ceil((startSeconds + READ_FROM * seconds) * SAMPLE_FPS - 1e-9), last: Math.floor((startSeconds + READ_TO * seconds) * SAMPLE_FPS + 1e-9) };
}

/** The mean of the given frames of raw 8-bit gray video (width × height each, back to back); frames past the end are left out. */
export function meanOfFrames(raw: Uint8Array, width: number, height: number, frames: Iterable<number>): LumaFrame | null {
  const size = width * height;
  const data = new Float32Array(size);
  let count = 0;
  for (const k of frames) {
    if (k < 0 || (k + 1) * size > raw.length) continue;
    for (let i = 0; i < size; i++) data[i]! += raw[k * size + i]!;
    count++;
  }
  if (count === 0) return null;
  for (let i = 0; i < size; i++) data[i]! /= count;
  return { width, height, data };
}

/** first..last as a list. */
export const frameRange = ({ first, last }: { first: number; last: number }) => Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);

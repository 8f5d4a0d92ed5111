import { describe, expect, it } from 'vitest';
import {
  findPlacement,
  markPattern,
  patternField,
  patternFrameYuv420,
  patternFromSigns,
  patternSignsText,
  readBit,
  sampleRegion,
  type LumaFrame,
  type Placement,
} from '../../functions/domain/watermark';

const KEY = Buffer.from('an event mark key of thirty-two!');
const pattern = markPattern(KEY);

/** A seeded stand-in for a picture: a few waves of 2 to 14 cycles per frame, different for each seed. */
function picture(seed: number, width = 320, height = 180): LumaFrame {
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) >>> 0) / 4294967296);
  const waves = Array.from({ length: 6 }, () => ({ fx: 2 + random() * 12, fy: 2 + random() * 12, phase: random() * 6.28, size: 10 + random() * 20 }));
  const data = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      data[y * width + x] = 128 + waves.reduce((sum, w) => sum + w.size * Math.sin((w.fx * x) / width * 6.28 + (w.fy * y) / height * 6.28 + w.phase), 0) / 2;
    }
  }
  return { width, height, data };
}

function plusPattern(frame: LumaFrame, sign: number): LumaFrame {
  const field = patternField(pattern, frame.width, frame.height);
  return { ...frame, data: frame.data.map((value, i) => value + sign * field[i]!) };
}

/** What a restreamer makes: the region at a quarter of the size, levels changed, noise added. */
function restream(frame: LumaFrame, placement: Placement, seed: number): LumaFrame {
  let state = seed;
  const noise = () => ((state = (state * 1664525 + 1013904223) >>> 0) / 4294967296 - 0.5) * 6;
  const data = sampleRegion(frame, placement, 160, 90).map((value) => 0.9 * value + 10 + noise());
  return { width: 160, height: 90, data };
}

describe('the mark pattern', () => {
  it('is smooth, balanced and faint, and its blend frame is 128 + P in luma and neutral in colour', () => {
    expect(pattern.signs.filter((s) => s === 1)).toHaveLength(6);
    expect(markPattern(Buffer.from('another key')).signs).not.toEqual(pattern.signs);
    const field = patternField(pattern, 320, 180);
    expect(Math.max(...field.map(Math.abs))).toBeLessThanOrEqual(2);
    expect(Math.max(...field.map(Math.abs))).toBeGreaterThan(1.9);
    expect(Math.abs(field.reduce((a, b) => a + b, 0) / field.length)).toBeLessThan(0.01);
    const frame = patternFrameYuv420(pattern, 320, 180);
    expect(frame.length).toBe(320 * 180 * 1.5);
    expect(frame[320 * 180 + 7]).toBe(128);
    expect(frame[90 * 320 + 40]).toBe(Math.round(128 + field[90 * 320 + 40]!));
  });

  it('travels to the ingest as its signs, without the key', () => {
    const text = patternSignsText(pattern);
    expect(text).toMatch(/^[+-]{12}$/);
    expect(patternFromSigns(text)).toEqual(pattern);
    expect(patternFromSigns('+-')).toBeNull();
    expect(patternFromSigns('+-+-+-+-+-+x')).toBeNull();
  });
});

describe('reading a bit back from a copy', () => {
  const where: Placement = { scale: 0.97, left: 0.012, top: 0.018 };
  const originals = [1, 2, 3, 4].map((seed) => picture(seed));

  it('finds a 3 % crop and reads A as 0 and B as 1 after scaling, level changes and noise; an unmarked copy as an erasure', () => {
    const pairs = originals.map((original, i) => ({ copy: restream(plusPattern(original, 1), where, i), original }));
    const found = findPlacement({ pairs });
    expect(found.scale).toBeCloseTo(0.97, 2);
    expect(Math.abs(found.left - 0.012)).toBeLessThan(0.003);
    expect(Math.abs(found.top - 0.018)).toBeLessThan(0.003);
    originals.forEach((original, i) => {
      const versions = { a: plusPattern(original, 1), b: plusPattern(original, -1) };
      const fromA = readBit({ copy: restream(versions.a, where, 10 + i), ...versions }, pattern, found);
      const fromB = readBit({ copy: restream(versions.b, where, 20 + i), ...versions }, pattern, found);
      const unmarked = readBit({ copy: restream(original, where, 30 + i), ...versions }, pattern, found);
      expect(fromA.bit).toBe(0);
      expect(fromA.strength).toBeGreaterThan(0.8);
      expect(fromB.bit).toBe(1);
      expect(fromB.strength).toBeLessThan(-0.8);
      expect(unmarked.bit).toBeNull();
    });
  });
});

/**
 * The copy's bit on each aligned segment (design section 4, steps 2–4): the copy's mean picture over
 * the segment's read window against the recording's A and B of the same moment, the crop found once
 * on a few segments spread over the copy, then `readBit` per segment with the part's pattern.
 */
import { findPlacement, patternFromSigns, readBit, type LumaFrame, type MarkBit, type Placement } from '../../functions/domain/watermark';

export interface SegmentPictureSet {
  part: string;
  index: number;
  signs: string;
  copy: LumaFrame;
  a: LumaFrame;
  b: LumaFrame;
}

export interface ReadBits {
  placement: Placement;
  bits: { part: string; index: number; bit: MarkBit | null; strength: number }[];
}

/** Segments the crop search looks at: a few spread over the copy (it costs a few seconds each). */
const PLACEMENT_SEGMENTS = 6;

const middle = (a: LumaFrame, b: LumaFrame): LumaFrame => ({ ...a, data: a.data.map((value, i) => (value + b.data[i]!) / 2) });

export function readCopyBits(sets: readonly SegmentPictureSet[]): ReadBits {
  if (sets.length === 0) return { placement: { scale: 1, left: 0, top: 0 }, bits: [] };
  const step = Math.max(1, Math.floor(sets.length / PLACEMENT_SEGMENTS));
  const pairs = sets.filter((_, i) => i % step === 0).slice(0, PLACEMENT_SEGMENTS).map((set) => ({ copy: set.copy, original: middle(set.a, set.b) }));
  const placement = findPlacement({ pairs });
  const bits = sets.map((set) => {
    const pattern = patternFromSigns(set.signs);
    if (!pattern) return { part: set.part, index: set.index, bit: null, strength: 0 };
    const reading = readBit({ copy: set.copy, a: set.a, b: set.b }, pattern, placement);
    return { part: set.part, index: set.index, bit: reading.bit, strength: reading.strength };
  });
  return { placement, bits };
}

import { createHmac } from 'node:crypto';

/**
 * The mark's bit: which version (A = 0, B = 1) of a segment a playback session gets. The edge
 * (`markedUri` in `edge/validate-request.js`) computes the same bit with the same HMAC, so the tracer can say,
 * for any session and any moment of the show, which version that session was served.
 *
 * Keyed with the event's mark key (never sent to viewers): without it a viewer cannot compute
 * another session's bits, which is what makes framing an innocent as hard as guessing coin flips.
 * The input is the moment (part and segment number), not the file: every rendition of a moment
 * carries the same bit, so a player's switches between renditions change nothing for the tracer.
 * One HMAC gives the bits of 256 consecutive segments of a part: the edge still computes one HMAC
 * per request, and the tracer scores a million sessions with a few million HMACs, not hundreds of millions.
 */
export type MarkBit = 0 | 1;

/** A segment's place in the show: its part (publish) and its number in that part. */
export interface Moment {
  part: string;
  index: number;
}

/** Bumped if the derivation ever changes, so old and new bits can never be mixed up. */
const BIT_LABEL = 'wm1.';
export const BITS_PER_BLOCK = 256;

/** The 256 bits of one block of a part for one session: segment n is bit n mod 256 of block ⌊n/256⌋. */
export function markBlock(markKey: Uint8Array, sessionId: string, part: string, block: number): Buffer {
  return createHmac('sha256', markKey).update(`${BIT_LABEL}${sessionId}.${part}.${block}`).digest();
}

export function bitOfBlock(block: Uint8Array, index: number): MarkBit {
  const bit = index % BITS_PER_BLOCK;
  return ((block[bit >> 3]! >> (bit & 7)) & 1) as MarkBit;
}

export function markBit(markKey: Uint8Array, sessionId: string, moment: Moment): MarkBit {
  return bitOfBlock(markBlock(markKey, sessionId, moment.part, Math.floor(moment.index / BITS_PER_BLOCK)), moment.index);
}

/**
 * One session's bits over many moments, each block computed once: what the tracer calls per
 * candidate (a 3-minute copy inside one part costs one or two HMACs per session).
 */
export function sessionMarks(markKey: Uint8Array, sessionId: string): (moment: Moment) => MarkBit {
  const blocks = new Map<string, Buffer>();
  return (moment) => {
    const block = Math.floor(moment.index / BITS_PER_BLOCK);
    const id = `${moment.part}.${block}`;
    let bits = blocks.get(id);
    if (!bits) blocks.set(id, (bits = markBlock(markKey, sessionId, moment.part, block)));
    return bitOfBlock(bits, moment.index);
  };
}

/** A copy's read bits that one HMAC of a session holds: those of one block of one part. */
export interface CopyBlock {
  part: string;
  block: number;
  bits: { index: number; bit: MarkBit }[];
}

/** The copy's read bits (erasures left out) grouped by their block: scoring a session costs one HMAC per group. */
export function copyBlocks(bits: readonly (Moment & { bit: MarkBit | null })[]): CopyBlock[] {
  const groups = new Map<string, CopyBlock>();
  for (const { part, index, bit } of bits) {
    if (bit === null) continue;
    const block = Math.floor(index / BITS_PER_BLOCK);
    const id = `${part}.${block}`;
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { part, block, bits: [] }));
    group.bits.push({ index, bit });
  }
  return [...groups.values()];
}

/** How many of the copy's read bits are the ones the edge served `sessionId`: what the tracer scores a session by. */
export function sessionAgreements(markKey: Uint8Array, sessionId: string, blocks: readonly CopyBlock[]): number {
  let agreements = 0;
  for (const { part, block, bits } of blocks) {
    const served = markBlock(markKey, sessionId, part, block);
    for (const { index, bit } of bits) if (bitOfBlock(served, index) === bit) agreements++;
  }
  return agreements;
}

/**
 * Names of a watermarked part's segments: `<part>_<n>[.<rendition>].<version>.ts` (part ids have no
 * dot), the version `w` in playlists and `a` or `b` in storage. Playlists name only `.w.ts`; the
 * edge turns that into the session's `.a.ts` or `.b.ts`, and refuses a request that names a version
 * itself (else a restreamer would fetch every segment as A, unmarked).
 */
export const WATERMARKED_SEGMENT = /\/([A-Za-z0-9_-]+)_([0-9]{1,9})(\.[0-9]+)?\.([wab])\.ts$/;

/** The moment of a watermarked segment's URI or file name, or null for any other file. */
export function momentOf(uri: string): Moment | null {
  const match = WATERMARKED_SEGMENT.exec(uri.startsWith('/') ? uri : `/${uri}`);
  return match ? { part: match[1]!, index: Number(match[2]) } : null;
}

import { createHmac } from 'node:crypto';

/**
 * The mark's bit: which version (A = 0, B = 1) of a segment a playback session gets. The edge
 * (`edge/watermark-choice.js`) computes the same bit with the same HMAC, so the tracer can say,
 * for any session and any moment of the show, which version that session was served.
 *
 * Keyed with the event's mark key (never sent to viewers): without it a viewer cannot compute
 * another session's bits, which is what makes framing an innocent as hard as guessing coin flips.
 * The input is the moment (`<partId>_<n>`), not the file: every rendition of a moment carries the
 * same bit, so a player's switches between renditions change nothing for the tracer.
 */
export type MarkBit = 0 | 1;

/** Bumped if the derivation ever changes, so old and new bits can never be mixed up. */
const BIT_LABEL = 'wm1.';

export function markBit(markKey: Uint8Array, sessionId: string, moment: string): MarkBit {
  const digest = createHmac('sha256', markKey).update(`${BIT_LABEL}${sessionId}.${moment}`).digest();
  return (digest[0]! & 1) as MarkBit;
}

/**
 * Names of a watermarked part's segments: `<moment>[.<rendition>].<version>.ts` where the moment is
 * `<partId>_<n>` (part ids have no dot), the version `w` in playlists and `a` or `b` in storage.
 * Playlists name only `.w.ts`; the edge turns that into the session's `.a.ts` or `.b.ts`, and
 * refuses a request that names a version itself (else a restreamer would fetch all-A, unmarked).
 */
export const WATERMARKED_SEGMENT = /\/([A-Za-z0-9_-]+)(\.[0-9]+)?\.([wab])\.ts$/;

/** The moment of a watermarked segment's URI or file name, or null for any other file. */
export function momentOf(uri: string): string | null {
  const match = WATERMARKED_SEGMENT.exec(uri.startsWith('/') ? uri : `/${uri}`);
  return match ? match[1]! : null;
}

import { createHmac } from 'node:crypto';
import { markPattern, patternSignsText } from '../../../recording/watermark-pattern';

/** Bumped if the derivation ever changes; an event's bits then change with it. */
const KEY_LABEL = 'wm-key.';

/**
 * An event's mark key: HMAC-SHA256(WATERMARK_SECRET, "wm-key." + eventId), 32 bytes. Derived, never
 * stored with the event: the edge gets it through edge-sync's `w:<eventId>` entry, the tracer and the
 * publish check derive it again. Not the playback signing key, which rotates: a recording's bits must
 * stay the same for as long as the recording exists.
 */
export function markKeyOf(secret: string, eventId: string): Buffer {
  return createHmac('sha256', secret).update(`${KEY_LABEL}${eventId}`).digest();
}

/**
 * What the ingest is told for a publish of a watermarked event (the publish check's `watermark.signs`): the
 * signs of the event's pattern as text, `+`/`-` per cell. Never the mark key: the key decides each viewer's
 * bits, and only the edge and the API hold it.
 */
export function patternSignsOf(secret: string, eventId: string): string {
  return patternSignsText(markPattern(markKeyOf(secret, eventId)));
}

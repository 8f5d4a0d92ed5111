import { createHmac } from 'node:crypto';

/**
 * An event's mark key: HMAC-SHA256(WATERMARK_SECRET, "wm-key." + eventId), 32 bytes. Derived, never
 * stored per event; not the signing key, which rotates, while a recording's bits must stay the same
 * for as long as the recording exists. The edge gets it as `w:<eventId>`; it never leaves the API otherwise.
 */
export function markKeyOf(secret: string, eventId: string): Buffer {
  return createHmac('sha256', secret).update(`wm-key.${eventId}`).digest();
}

/**
 * The playback JWT: issued by code validation and refresh, checked by the API
 * (refresh, heartbeat, release), by the RTMP play callback and by the edge
 * validator (`edge/`). Signed HS256 only, with a `kid` header naming the key.
 */
export const PLAYBACK_ISSUER = 'stagedoor';
export const PLAYBACK_AUDIENCE = 'stagedoor-playback';
/** Lifetime of a playback JWT. The player refreshes at 80 %, so 8 refreshes an hour stay under the 12/hour limit. */
export const PLAYBACK_TOKEN_TTL_SECONDS = 600;
/** Lifetime of an admin's preview token; the console asks for a new one before it runs out. */
export const PREVIEW_TOKEN_TTL_SECONDS = 300;
/** The `code` claim of a preview token: lower case, so it can never be an access code. */
export const PREVIEW_CODE = 'preview';

export interface PlaybackClaims {
  iss: typeof PLAYBACK_ISSUER;
  aud: typeof PLAYBACK_AUDIENCE;
  /** The access code (the viewer holds it anyway). */
  code: string;
  /** Event id. */
  eid: string;
  /** Playback session id: one per device that redeemed the code. */
  sid: string;
  /** Path prefix the token opens, `/streams/<eventId>/`. */
  path: string;
  /**
   * Set on an admin's preview token: the edge plays it like any other, while
   * refresh, heartbeat, release and the RTMP play check refuse it.
   */
  prv?: true;
  iat: number;
  nbf: number;
  exp: number;
}

export function streamPathOf(eventId: string): string {
  return `/streams/${eventId}/`;
}

/** A viewer counts as present from a claim or refresh until the next refresh is due (80 % of the JWT's life). */
export const PRESENCE_WINDOW_SECONDS = Math.round(PLAYBACK_TOKEN_TTL_SECONDS * 0.8);

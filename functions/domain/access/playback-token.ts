import { SignJWT, jwtVerify, errors, type JWTPayload } from 'jose';
import type { SigningKeys } from '../signing-keys';
import {
  PLAYBACK_AUDIENCE,
  PLAYBACK_ISSUER,
  PLAYBACK_TOKEN_TTL_SECONDS,
  PREVIEW_TOKEN_TTL_SECONDS,
  streamPathOf,
  type PlaybackClaims,
} from '../playback-claims';

export interface PlaybackGrant {
  code: string;
  eventId: string;
  sessionId: string;
  /** An admin's preview: marked in the claims, shorter-lived. */
  preview?: boolean;
}

export async function signPlaybackToken(
  grant: PlaybackGrant,
  keys: SigningKeys,
  now: Date,
): Promise<{ token: string; expiresIn: number }> {
  const iat = Math.floor(now.getTime() / 1000);
  const lifetime = grant.preview ? PREVIEW_TOKEN_TTL_SECONDS : PLAYBACK_TOKEN_TTL_SECONDS;
  const token = await new SignJWT({
    code: grant.code,
    eid: grant.eventId,
    sid: grant.sessionId,
    path: streamPathOf(grant.eventId),
    ...(grant.preview ? { prv: true } : {}),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: keys.activeKid })
    .setIssuer(PLAYBACK_ISSUER)
    .setAudience(PLAYBACK_AUDIENCE)
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + lifetime)
    .sign(keys.keys.get(keys.activeKid)!);
  return { token, expiresIn: lifetime };
}

export type VerifiedPlayback =
  | { ok: true; expired: boolean; claims: PlaybackClaims }
  | { ok: false };

/**
 * Verifies signature (HS256 with one of our keys, chosen by `kid`), issuer,
 * audience and claim shapes. An expired token with a good signature comes
 * back as `expired: true`, so callers can tell "expired" from "forged".
 */
export async function verifyPlaybackToken(token: string, keys: SigningKeys, now: Date): Promise<VerifiedPlayback> {
  if (!hasCanonicalSignature(token)) return { ok: false };
  let payload: JWTPayload;
  let expired = false;
  try {
    ({ payload } = await jwtVerify(token, (header) => keyFor(header.kid, keys), {
      algorithms: ['HS256'],
      issuer: PLAYBACK_ISSUER,
      audience: PLAYBACK_AUDIENCE,
      currentDate: now,
      requiredClaims: ['exp', 'iat'],
    }));
  } catch (error) {
    if (!(error instanceof errors.JWTExpired)) return { ok: false };
    // jose raises JWTExpired only after the signature and the other claims checked out.
    payload = error.payload;
    expired = true;
  }
  const claims = payload as Partial<PlaybackClaims>;
  if (
    typeof claims.code !== 'string' ||
    typeof claims.eid !== 'string' ||
    typeof claims.sid !== 'string' ||
    (claims.prv !== undefined && claims.prv !== true) ||
    claims.path !== streamPathOf(claims.eid)
  ) {
    return { ok: false };
  }
  return { ok: true, expired, claims: claims as PlaybackClaims };
}

/**
 * The edge compares the signature as the canonical base64url text of the MAC,
 * so it refuses a signature with padding or with other values in the last
 * character's unused bits; the decoder here would accept them. Refusing them
 * too keeps one token valid in one spelling only, everywhere.
 */
function hasCanonicalSignature(token: string): boolean {
  const signature = token.slice(token.lastIndexOf('.') + 1);
  return /^[A-Za-z0-9_-]+$/.test(signature) && Buffer.from(signature, 'base64url').toString('base64url') === signature;
}

function keyFor(kid: string | undefined, keys: SigningKeys): Uint8Array {
  const key = kid === undefined ? undefined : keys.keys.get(kid);
  if (!key) throw new errors.JWKSNoMatchingKey();
  return key;
}

export type ViewerTokenCheck = { ok: true; claims: PlaybackClaims } | { ok: false; problem: 'invalid' | 'expired' };

/**
 * The one check of a viewer's playback JWT, for refresh, the long-lived URL,
 * heartbeat, release and the RTMP play callback: genuine, and a viewer's (an
 * admin's preview token opens the HLS only: it has no session to refresh,
 * keep alive, release or play over RTMP). An expired token is `expired`
 * unless `allowExpired`: release frees the session of an expired but genuine
 * token, and the RTMP recheck re-asks with the token the player connected with.
 */
export async function checkViewerToken(
  token: string | null | undefined,
  keys: SigningKeys,
  now: Date,
  options: { allowExpired: boolean },
): Promise<ViewerTokenCheck> {
  const verified = token ? await verifyPlaybackToken(token, keys, now) : null;
  if (!verified?.ok || verified.claims.prv) return { ok: false, problem: 'invalid' };
  if (verified.expired && !options.allowExpired) return { ok: false, problem: 'expired' };
  return { ok: true, claims: verified.claims };
}

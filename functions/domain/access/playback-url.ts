import { createHmac } from 'node:crypto';
import type { SigningKeys } from '../signing-keys';

/**
 * The header-less playback URL: `<base>/streams/<eventId>/~<credential>/index.m3u8`.
 * Players that send no header (Safari's native player, AirPlay, TVs, VLC,
 * ffmpeg) resolve every relative URI of every playlist under the credential,
 * so variants and segments stay authorised; the edge (`edge/validate-request.js`)
 * checks the credential and removes it from the URI before the cache and the origin.
 *
 * Credential: `<kid>.<sessionId>.<exp base36>.<sealed code>.<mac>`, about 75
 * characters. The code is sealed (XOR with an HMAC keystream) because the edge
 * needs it for the revocation check while the URL must not reveal it: a copied
 * URL stays bound to its session and cannot be turned into a fresh claim.
 */
export interface PlaybackUrlGrant {
  code: string;
  eventId: string;
  sessionId: string;
  /** Epoch seconds after which the edge refuses it. */
  expiresAt: number;
}

/** 22 base64url characters = 132 bits of HMAC-SHA256. */
const MAC_CHARS = 22;

function hmac(key: Uint8Array, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

export function playbackCredential(grant: PlaybackUrlGrant, keys: SigningKeys): string {
  const key = keys.keys.get(keys.activeKid)!;
  const exp = grant.expiresAt.toString(36);
  const stream = hmac(key, `pc.${grant.sessionId}.${exp}`);
  const code = Buffer.from(grant.code, 'ascii');
  // Codes are 12 characters; one HMAC block covers up to 32.
  if (code.length > stream.length) throw new Error('access code too long for a playback credential');
  const sealed = Buffer.from(code.map((byte, i) => byte ^ stream[i]!)).toString('base64url');
  const mac = hmac(key, `p1.${grant.eventId}.${grant.sessionId}.${exp}.${sealed}`).toString('base64url').slice(0, MAC_CHARS);
  return `${keys.activeKid}.${grant.sessionId}.${exp}.${sealed}.${mac}`;
}

/** The absolute URL of the entry playlist carrying the credential. */
export function playbackUrlOf(playbackBaseUrl: string, grant: PlaybackUrlGrant, keys: SigningKeys): string {
  const base = playbackBaseUrl.replace(/\/+$/, '');
  return `${base}/streams/${grant.eventId}/~${playbackCredential(grant, keys)}/index.m3u8`;
}

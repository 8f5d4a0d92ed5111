import { createHash } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { renderSVG } from 'uqr';
import { CODE_ALPHABET } from '../codes';
import { randomString } from '../random';

/** RFC 6238 with the parameters every authenticator app supports: SHA-1, 6 digits, 30 s. */
const PERIOD_SECONDS = 30;
/** One step either side tolerates a phone clock off by up to 30 s. */
const WINDOW = 1;
const ISSUER = 'Stagedoor';
export const RECOVERY_CODE_COUNT = 10;

function totp(secret: string, username: string): TOTP {
  return new TOTP({ issuer: ISSUER, label: username, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret: Secret.fromBase32(secret) });
}

/** A fresh 160-bit secret (RFC 4226's recommended length), base32 as apps expect it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** What the console shows while enrolling: the secret as text, its `otpauth://` URI and that URI as a QR code (SVG data URL, drawn by uqr with no network). */
export function enrolmentOffer(secret: string, username: string) {
  const uri = totp(secret, username).toString();
  const svg = renderSVG(uri, { ecc: 'M', border: 2 });
  return { secret, otpauthUrl: uri, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/** The time step the code belongs to, or null when it matches none within the window. */
export function matchTotp(secret: string, username: string, code: string, now: Date): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const timestamp = now.getTime();
  const delta = totp(secret, username).validate({ token, timestamp, window: WINDOW });
  return delta === null ? null : Math.floor(timestamp / 1000 / PERIOD_SECONDS) + delta;
}

/**
 * Ten codes of 16 characters from the access-code alphabet (80 bits each),
 * grouped by four for reading. That much entropy makes a plain SHA-256 a safe
 * way to store them, and lets a check compare hashes without a slow KDF.
 */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => randomString(CODE_ALPHABET, 16).match(/.{4}/g)!.join('-'));
}

/** Hash of a recovery code as typed: case, spaces and dashes do not matter. */
export function hashRecoveryCode(code: string): string {
  const normalized = code.replace(/[\s-]+/g, '').toUpperCase();
  return createHash('sha256').update(`stagedoor-recovery:${normalized}`).digest('hex');
}

import { createHmac } from 'node:crypto';
import { secretsEqual } from '../constant-time';

/** How old a signed delivery may be (either way, for clock skew), as Stripe's default. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * `Stagedoor-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, Stripe's scheme:
 * the time inside the signed text makes a captured delivery useless after the tolerance. Several
 * `v1` values may be given (a secret being rolled); one matching is enough.
 */
export function signPayload(secret: string, rawBody: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${hmac(secret, `${t}.${rawBody}`)}`;
}

/** True when `header` signs `rawBody` with `secret` within the tolerance of `now`. */
export function verifySignature(secret: string, rawBody: string, header: string | undefined, now: Date): boolean {
  if (!header) return false;
  const parts = header.split(',').map((part) => part.trim().split('='));
  const t = parts.find(([name]) => name === 't')?.[1];
  const signatures = parts.filter(([name, value]) => name === 'v1' && value).map(([, value]) => value!.toLowerCase());
  if (!t || !/^\d{1,12}$/.test(t) || signatures.length === 0) return false;
  if (Math.abs(now.getTime() / 1000 - Number(t)) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = hmac(secret, `${t}.${rawBody}`);
  // Every candidate is compared, so the time taken tells nothing about which one was close.
  return signatures.map((signature) => secretsEqual(signature, expected)).includes(true);
}

const hmac = (secret: string, text: string) => createHmac('sha256', secret).update(text, 'utf8').digest('hex');

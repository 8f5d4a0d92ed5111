import type { ApiEvent } from './api-types';
import { secretsEqual } from '../domain/constant-time';

export function header(event: ApiEvent, name: string): string | undefined {
  return event.headers?.[name.toLowerCase()] ?? undefined;
}

export function bearerToken(event: ApiEvent): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(header(event, 'authorization') ?? '');
  return match ? match[1]! : null;
}

export function cookie(event: ApiEvent, name: string): string | null {
  const all = event.cookies ?? (header(event, 'cookie') ?? '').split(';');
  for (const entry of all) {
    const at = entry.indexOf('=');
    if (at > 0 && entry.slice(0, at).trim() === name) return entry.slice(at + 1).trim();
  }
  return null;
}

/**
 * The viewer's address. API Gateway's `sourceIp` is the TCP peer and cannot
 * be forged; behind our CloudFront that peer is CloudFront, so its
 * `CloudFront-Viewer-Address` is believed only when the request also carries
 * the origin secret CloudFront adds. A client's `X-Forwarded-For` is never used.
 */
export function clientIp(event: ApiEvent, originVerifySecret: string | null): string {
  const peer = event.requestContext.http.sourceIp;
  const proof = header(event, 'x-origin-verify');
  const viewer = header(event, 'cloudfront-viewer-address');
  if (originVerifySecret && proof && viewer && secretsEqual(proof, originVerifySecret)) {
    // "203.0.113.7:4711" or "2001:db8::1:4711": the port follows the last colon.
    return viewer.slice(0, viewer.lastIndexOf(':')).replace(/^\[|\]$/g, '');
  }
  return peer;
}

/**
 * The viewer's country (ISO 3166-1 alpha-2), null when unknown. CloudFront sets `CloudFront-Viewer-Country`
 * (overwriting a client's) on /api/* because the origin request policy names it; as with the address, it is
 * believed only with the origin secret, so a request straight to API Gateway has no country. Without a
 * secret configured (`npm start`) the header is read as sent, so a test or a demo can come from anywhere.
 */
export function viewerCountry(event: ApiEvent, originVerifySecret: string | null): string | null {
  const country = header(event, 'cloudfront-viewer-country')?.trim().toUpperCase() ?? '';
  if (!/^[A-Z]{2}$/.test(country)) return null;
  if (!originVerifySecret) return country;
  const proof = header(event, 'x-origin-verify');
  return proof && secretsEqual(proof, originVerifySecret) ? country : null;
}

/** Scheme and host the client used, as seen through API Gateway or the local adapter. */
export function requestOrigin(event: ApiEvent): { proto: string; hostname: string } {
  const proto = header(event, 'x-forwarded-proto') ?? 'https';
  const host = header(event, 'host') ?? event.requestContext.domainName;
  const hostname = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
  return { proto, hostname };
}

/** The request body exactly as sent (a signature covers these bytes, not a re-serialized parse). */
export function rawBody(event: ApiEvent): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

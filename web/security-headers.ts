/**
 * The security headers of the site: one definition for AWS (CloudFront response headers policies,
 * infra/lib/constructs/delivery.ts) and for local mode (local/api-server.ts adds them as CloudFront would).
 *
 * The pages load only their own bundles and stylesheets; media comes from the site itself (AWS) or the
 * local media server, and hls.js plays it through MediaSource (`blob:` URLs) with its transmuxer in a
 * worker it makes from a `blob:`. Images are the pages' own, and `data:` (the favicon, the TOTP QR
 * code). Nothing may frame a page; links leave no referrer (access codes travel in watch links).
 */

/** HSTS in AWS (always https): two years, subdomains included. Not set locally (plain http). */
export const HSTS_MAX_AGE_SECONDS = 2 * 365 * 24 * 60 * 60;

/** The pages' Content-Security-Policy; `mediaSources`: where HLS comes from besides the site itself. */
export function pageContentSecurityPolicy(mediaSources: readonly string[] = []): string {
  const media = ["'self'", ...mediaSources].join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `media-src ${media} blob:`,
    `connect-src ${media}`,
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The API answers JSON (and CSV): nothing in them may load anything, or be framed. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** Every answer of the site, pages and API alike (with the kind's CSP). */
export const COMMON_SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // For browsers without frame-ancestors.
  'x-frame-options': 'DENY',
} as const;

/** The headers of one answer, as local mode sends them. */
export function securityHeaders(kind: 'page' | 'api', mediaSources: readonly string[] = []): Record<string, string> {
  return {
    ...COMMON_SECURITY_HEADERS,
    'content-security-policy': kind === 'api' ? API_CONTENT_SECURITY_POLICY : pageContentSecurityPolicy(mediaSources),
  };
}

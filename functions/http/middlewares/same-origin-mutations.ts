import type { MiddlewareObj } from '@middy/core';
import type { ApiContext, ApiEvent, ApiResult } from '../api-types';
import { HttpError } from '../http-error';
import { header } from '../request-info';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF defence of the admin area beyond the cookie's `SameSite=Strict`: a
 * mutation carries JSON or no body at all (an HTML form can send neither
 * `application/json` nor a bodyless POST from another site), and a browser's
 * `Origin`, when present, names this site: the configured `SITE_ORIGIN` (the
 * CloudFront URL in AWS, where the API sees another host) or the host the
 * request was sent to.
 */
export function sameOriginMutations(): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> {
  return {
    before: function checkSameOrigin(request) {
      const { event } = request;
      if (READS.has(event.requestContext.http.method)) return;
      const type = header(event, 'content-type');
      const hasBody = event.body !== undefined && event.body !== null && event.body !== '';
      if (type ? !/^application\/json\s*(;|$)/i.test(type) : hasBody) throw new HttpError(415, 'Content-Type must be application/json');
      const origin = header(event, 'origin');
      if (origin !== undefined && !isOwnOrigin(origin, event, request.context.app.config.siteOrigin)) {
        throw new HttpError(403, 'Cross-origin request refused');
      }
    },
  };
}

function isOwnOrigin(origin: string, event: ApiEvent, siteOrigin: string | null): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (siteOrigin && parsed.origin === new URL(siteOrigin).origin) return true;
  const host = header(event, 'host');
  return host !== undefined && parsed.host === host.toLowerCase();
}

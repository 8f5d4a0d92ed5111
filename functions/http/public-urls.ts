import type { ApiRequest } from './api-types';
import { header, requestOrigin } from './request-info';

/** `PLAYBACK_BASE_URL` in AWS (the CloudFront host); locally the request's host on the media port (spec rule 1). */
export function playbackBaseUrl({ app, event }: ApiRequest): string {
  if (app.config.playbackBaseUrl) return app.config.playbackBaseUrl;
  const { proto, hostname } = requestOrigin(event);
  return `${proto}://${hostname}:${app.config.mediaPort}`;
}

/** The viewer page: the site's origin (`SITE_ORIGIN`, in AWS); locally the origin the admin's request came to (it serves the pages too). */
export function viewerUrl({ app, event }: ApiRequest): string {
  if (app.config.siteOrigin) return app.config.siteOrigin;
  const { proto } = requestOrigin(event);
  return `${proto}://${header(event, 'host') ?? event.requestContext.domainName}`;
}

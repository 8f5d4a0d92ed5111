import { cloudFrontMediaCache } from '../adapters/cdn-invalidation';
import { mediaServerCache } from '../adapters/media-server-cache';
import type { MediaCache } from '../domain/media-cache';

let cache: MediaCache | null | undefined;

/**
 * The admin's "clear media cache": a CloudFront invalidation in AWS
 * (`CLOUDFRONT_DISTRIBUTION_ID`), the local media server's admin endpoint
 * locally (`MEDIA_ADMIN_URL`). Only the admin function bundles it.
 */
export function mediaCacheForEnv(env: NodeJS.ProcessEnv = process.env): MediaCache | null {
  if (cache !== undefined) return cache;
  if (env.CLOUDFRONT_DISTRIBUTION_ID) cache = cloudFrontMediaCache(env.CLOUDFRONT_DISTRIBUTION_ID);
  else if (env.MEDIA_ADMIN_URL) cache = mediaServerCache(env.MEDIA_ADMIN_URL);
  else cache = null;
  return cache;
}

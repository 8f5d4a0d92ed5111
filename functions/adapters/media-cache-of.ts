import type { MediaCacheTarget } from '../config/api-config';
import type { MediaCache } from '../domain/streams';
import { cloudFrontMediaCache } from './cdn-invalidation';
import { mediaServerCache } from './media-server-cache';

/**
 * The admin's "clear media cache": a CloudFront invalidation in AWS, the local media server's
 * admin endpoint locally; null when the configuration names neither. Only the admin function bundles it.
 */
export function mediaCacheOf(target: MediaCacheTarget): MediaCache | null {
  if (!target) return null;
  return 'cloudFrontDistributionId' in target ? cloudFrontMediaCache(target.cloudFrontDistributionId) : mediaServerCache(target.mediaAdminUrl);
}

import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import { Construct } from 'constructs';
import { apiPolicies, mediaCachePolicy, mediaOriginRequestPolicy } from './delivery/cache-policies';
import { hasCustomDomain, viewerDistribution } from './delivery/distribution';
import { edgeFunctions } from './delivery/edge-functions';
import { addOptionalRateRule } from './delivery/rate-limit';
import { securityHeaders } from './delivery/response-headers';
import type { DeliveryProps } from './delivery/props';

export {
  API_MAX_SHARED_CACHE_SECONDS,
  DIRECTORY_INDEX_FILE,
  MEDIA_GUARD_FILE,
  ORIGIN_VERIFY_HEADER,
  WAF_SIGN_IN_REQUESTS_PER_5_MIN,
} from './delivery/settings';


/**
 * One CloudFront distribution for everything viewers touch: the pages (default),
 * the API (`/api/*`, never cached) and HLS (`/streams/*`, every request checked by
 * `edge/validate-request.js` against the playback JWT and the KeyValueStore).
 */
export type { DeliveryProps } from './delivery/props';

export class Delivery extends Construct {
  readonly distribution: cloudfront.Distribution;
  readonly keyValueStore: cloudfront.KeyValueStore;
  readonly mediaGuard: cloudfront.Function;
  /** `https://<domain>`, no trailing slash: PLAYBACK_BASE_URL and the viewer URL. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: DeliveryProps) {
    super(scope, id);
    const edge = edgeFunctions(this);
    this.keyValueStore = edge.keyValueStore;
    this.mediaGuard = edge.mediaGuard;

    this.distribution = viewerDistribution(this, {
      ...props,
      directoryIndex: edge.directoryIndex,
      mediaGuard: edge.mediaGuard,
      mediaCache: mediaCachePolicy(this),
      mediaOriginRequest: mediaOriginRequestPolicy(this),
      api: apiPolicies(this),
      headers: securityHeaders(this),
    });
    addOptionalRateRule(this, this.distribution);

    this.url = `https://${hasCustomDomain(props) ? props.domainName : this.distribution.distributionDomainName}`;
  }
}

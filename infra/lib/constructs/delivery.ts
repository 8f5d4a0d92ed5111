import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IDependable } from 'constructs';
import { apiPolicies, mediaCachePolicy } from './delivery/cache-policies';
import { hasCustomDomain, viewerDistribution } from './delivery/distribution';
import { edgeFunctions } from './delivery/edge-functions';
import { addOptionalRateRule } from './delivery/rate-limit';
import { securityHeaders } from './delivery/response-headers';

export {
  API_MAX_SHARED_CACHE_SECONDS,
  DIRECTORY_INDEX_FILE,
  MEDIA_GUARD_FILE,
  ORIGIN_VERIFY_HEADER,
  WAF_SIGN_IN_REQUESTS_PER_5_MIN,
} from './delivery/settings';

export interface DeliveryProps {
  mediaBucket: s3.IBucket;
  webBucket: s3.IBucket;
  logsBucket: s3.IBucket;
  /** `<id>.execute-api.<region>.<suffix>` */
  apiDomainName: string;
  /** Holds `originVerifySecret`. */
  secret: secretsmanager.ISecret;
  /** The secret's generated fields exist (the distribution resolves one at deploy time). */
  secretReady: IDependable;
  /** Optional custom domain with its us-east-1 ACM certificate. */
  domainName?: string;
  certificateArn?: string;
  priceClass: cloudfront.PriceClass;
}

/**
 * One CloudFront distribution for everything viewers touch: the pages (default),
 * the API (`/api/*`, never cached) and HLS (`/streams/*`, every request checked by
 * `edge/validate-request.js` against the playback JWT and the KeyValueStore).
 */
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
      api: apiPolicies(this),
      headers: securityHeaders(this),
    });
    addOptionalRateRule(this, this.distribution);

    this.url = `https://${hasCustomDomain(props) ? props.domainName : this.distribution.distributionDomainName}`;
  }
}

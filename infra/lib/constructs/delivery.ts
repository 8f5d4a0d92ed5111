import { Annotations, Aws, CfnCondition, CfnParameter, Duration, Fn, Token } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { NagSuppressions } from 'cdk-nag';
import { Construct, type IDependable } from 'constructs';
import { repoPath } from '../paths';
import { API_CONTENT_SECURITY_POLICY, HSTS_MAX_AGE_SECONDS, pageContentSecurityPolicy } from '../../../web/security-headers';

/** The files of the two CloudFront Functions (runtime code stays out of the CDK code). */
export const MEDIA_GUARD_FILE = repoPath('edge/validate-request.js');
export const DIRECTORY_INDEX_FILE = repoPath('infra/edge/directory-index.js');

/** The longest any API response may be kept by CloudFront: the event status's and sale's `s-maxage` (functions/handlers/public.ts). */
export const API_MAX_SHARED_CACHE_SECONDS = 5;

/**
 * Sign-in steps one address may send in 5 minutes under the optional WAF rule: above the API's own
 * per-address login limit (10 a minute), so only a flood is blocked, and before it spends the route throttles.
 */
export const WAF_SIGN_IN_REQUESTS_PER_5_MIN = 100;

/** Header CloudFront adds to /api/* origin requests; the API believes CloudFront-Viewer-Address only with it. */
export const ORIGIN_VERIFY_HEADER = 'X-Origin-Verify';

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

    // Signing keys (k:<kid>) and revocations (c:, e:, s:); written by the edge-sync function.
    this.keyValueStore = new cloudfront.KeyValueStore(this, 'Revocations', {
      comment: 'Stagedoor playback signing keys and revocations (docs/delivery.md)',
    });
    this.mediaGuard = new cloudfront.Function(this, 'MediaGuard', {
      comment: 'Checks the playback JWT and revocations on /streams/*',
      code: cloudfront.FunctionCode.fromFile({ filePath: MEDIA_GUARD_FILE }),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      keyValueStore: this.keyValueStore,
    });
    const directoryIndex = new cloudfront.Function(this, 'DirectoryIndex', {
      comment: 'Serves <dir>/index.html for /admin/ and other folder URLs',
      code: cloudfront.FunctionCode.fromFile({ filePath: DIRECTORY_INDEX_FILE }),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
    });

    // Path only: the token (header or ?token=) must neither split the cache nor reach S3.
    const mediaCachePolicy = new cloudfront.CachePolicy(this, 'MediaCache', {
      comment: 'HLS: cache key is the path; TTLs follow the objects (playlists 1 s, segments immutable)',
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(1),
      maxTtl: Duration.days(365),
      queryStringBehavior: cloudfront.CacheQueryStringBehavior.none(),
      headerBehavior: cloudfront.CacheHeaderBehavior.none(),
      cookieBehavior: cloudfront.CacheCookieBehavior.none(),
    });

    // The API is cached only where a response allows it: every route answers `Cache-Control: no-store`
    // except the public event status and sale (`s-maxage=5`; the status is polled by every waiting page:
    // a million pages cost the origin a few requests a second per edge instead of 200,000/s). The default
    // TTL is 0, so a response without the header (API Gateway's own errors) is not cached either. Authorization has
    // to be in the cache key all the same, because CloudFront forwards it no other way (origin request
    // policies may not name it, and AllViewer would also send Host, which API Gateway rejects). Cookies
    // and query strings are in the key too, so a cached answer only ever goes to callers that sent the
    // same ones (waiting pages send none).
    const apiCachePolicy = new cloudfront.CachePolicy(this, 'ApiCache', {
      comment: 'Stagedoor API: cached only as responses allow (event status and sale s-maxage=5; the rest no-store)',
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(0),
      maxTtl: Duration.seconds(API_MAX_SHARED_CACHE_SECONDS),
      headerBehavior: cloudfront.CacheHeaderBehavior.allowList('Authorization'),
      cookieBehavior: cloudfront.CacheCookieBehavior.all(),
      queryStringBehavior: cloudfront.CacheQueryStringBehavior.all(),
    });
    // What the handlers read besides those (functions/http/request-info.ts, middlewares), plus the
    // viewer's address, which CloudFront adds only when a policy names it. Not Host: API Gateway
    // answers only to its own name. Not X-Forwarded-For: the API never believes it.
    const apiOriginRequestPolicy = new cloudfront.OriginRequestPolicy(this, 'ApiOriginRequest', {
      comment: 'Stagedoor API: the headers the handlers read, and CloudFront-Viewer-Address',
      headerBehavior: cloudfront.OriginRequestHeaderBehavior.allowList(
        'CloudFront-Viewer-Address',
        'Content-Type',
        'Accept',
        'Origin',
        'X-Internal-Api-Key',
        // Orders are signed: a shop's (POST /api/webhooks/orders), Stripe's (POST /api/webhooks/stripe).
        'Stagedoor-Signature',
        'Stripe-Signature',
        // Summarised for admins in the live sessions list.
        'User-Agent',
      ),
      cookieBehavior: cloudfront.OriginRequestCookieBehavior.none(),
      queryStringBehavior: cloudfront.OriginRequestQueryStringBehavior.none(),
    });

    // The site's security headers (web/security-headers.ts, which local mode sends too), and HSTS.
    const securityHeaders = (name: string, comment: string, contentSecurityPolicy: string) =>
      new cloudfront.ResponseHeadersPolicy(this, name, {
        comment,
        securityHeadersBehavior: {
          contentSecurityPolicy: { contentSecurityPolicy, override: true },
          contentTypeOptions: { override: true },
          frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
          referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
          strictTransportSecurity: { accessControlMaxAge: Duration.seconds(HSTS_MAX_AGE_SECONDS), includeSubdomains: true, override: true },
        },
      });
    // HLS comes from this distribution too (/streams/*): the pages need no other origin.
    const pageHeaders = securityHeaders('PageHeaders', 'Stagedoor pages: CSP of web/security-headers.ts, no framing, no referrer, HSTS', pageContentSecurityPolicy());
    const apiHeaders = securityHeaders('ApiHeaders', 'Stagedoor API: nothing loads, no framing, no referrer, HSTS', API_CONTENT_SECURITY_POLICY);

    const apiOrigin = new origins.HttpOrigin(props.apiDomainName, {
      protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
      originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
      // A Secrets Manager dynamic reference: CloudFormation resolves it at deploy time, so the
      // value is in neither the template nor cdk.out. It does end up in the distribution's
      // configuration (readable with cloudfront:GetDistributionConfig), and a new value
      // reaches CloudFront only when the distribution is next updated (docs/deploy.md).
      customHeaders: { [ORIGIN_VERIFY_HEADER]: props.secret.secretValueFromJson('originVerifySecret').unsafeUnwrap() },
    });

    const custom = props.domainName && props.certificateArn;
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'Stagedoor: pages, /api/*, /streams/*',
      priceClass: props.priceClass,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      defaultRootObject: 'index.html',
      enableLogging: true,
      logBucket: props.logsBucket,
      logFilePrefix: 'cloudfront/',
      ...(custom
        ? {
            domainNames: [props.domainName!],
            certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn!),
            minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(props.webBucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: pageHeaders,
        functionAssociations: [{ function: directoryIndex, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        '/api/*': {
          origin: apiOrigin,
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          cachePolicy: apiCachePolicy,
          originRequestPolicy: apiOriginRequestPolicy,
          responseHeadersPolicy: apiHeaders,
        },
        '/streams/*': {
          // LIST lets S3 answer 404 (not 403) for a playlist that is not there yet, which the
          // player reads as "waiting for the stream" rather than "access denied".
          origin: origins.S3BucketOrigin.withOriginAccessControl(props.mediaBucket, {
            originAccessLevels: [cloudfront.AccessLevel.READ, cloudfront.AccessLevel.LIST],
          }),
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          // OPTIONS reaches the function, which answers the CORS preflight itself.
          allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
          cachedMethods: cloudfront.CachedMethods.CACHE_GET_HEAD,
          cachePolicy: mediaCachePolicy,
          responseHeadersPolicy: cloudfront.ResponseHeadersPolicy.CORS_ALLOW_ALL_ORIGINS,
          functionAssociations: [{ function: this.mediaGuard, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
        },
      },
      // A missing playlist is polled every few seconds by the player: do not cache the 404 long.
      errorResponses: [{ httpStatus: 404, ttl: Duration.seconds(1) }],
    });
    // The origin header resolves the secret's originVerifySecret, which the seeding creates.
    this.distribution.node.addDependency(props.secretReady);
    this.addOptionalRateRule();

    // LIST is granted on the media bucket only, which is not behind the default behavior.
    Annotations.of(this.distribution).acknowledgeWarning(
      '@aws-cdk/aws-cloudfront-origins:listBucketSecurityRisk',
      'LIST is on the media origin (/streams/*, behind the media guard), not on the default behavior.',
    );

    this.url = `https://${custom ? props.domainName : this.distribution.distributionDomainName}`;

    NagSuppressions.addResourceSuppressions(this.distribution, [
      { id: 'AwsSolutions-CFR1', reason: 'Ticketed events are sold worldwide; access is controlled per code, not per country.' },
      {
        id: 'AwsSolutions-CFR2',
        reason: 'WAF is optional (stack parameter WafValidateRequestsPer5Min; about $5/month + per request): the API rate-limits failed validations and logins by client address in DynamoDB, and validate/login have route throttles.',
      },
      ...(custom
        ? []
        : [
            {
              id: 'AwsSolutions-CFR4',
              reason: 'Without a custom domain the distribution uses the *.cloudfront.net certificate, whose minimum protocol CloudFront fixes at TLSv1; with a domain it is TLSv1.2_2021.',
            },
          ]),
    ]);
  }

  /**
   * Stack parameter `WafValidateRequestsPer5Min`: when above 0, an AWS WAF web ACL on the distribution
   * blocks an address that sends more validations than that in 5 minutes, and more than
   * `WAF_SIGN_IN_REQUESTS_PER_5_MIN` sign-in steps (password or second factor), before they reach API
   * Gateway, whose route throttles are shared by every caller: without it one client can spend them
   * and keep the staff out. Only those paths count: heartbeats of a thousand viewers behind one
   * carrier NAT are legitimate. A CloudFront web ACL lives in us-east-1, so the stack must be deployed there.
   */
  private addOptionalRateRule(): void {
    const limit = new CfnParameter(this, 'WafValidateRequestsPer5Min', {
      type: 'Number',
      default: 0,
      minValue: 0,
      description:
        'AWS WAF rate-based rules on the distribution: most POST /api/tokens/validate per client address in 5 minutes (0 = no WAF; otherwise at least 10); sign-in steps are then limited too. Needs the stack in us-east-1.',
    });
    limit.overrideLogicalId('WafValidateRequestsPer5Min');
    const enabled = new CfnCondition(this, 'WafEnabled', { expression: Fn.conditionNot(Fn.conditionEquals(limit.valueAsNumber, 0)) });
    const path = (suffix: string): wafv2.CfnWebACL.StatementProperty => ({
      byteMatchStatement: {
        fieldToMatch: { uriPath: {} },
        positionalConstraint: 'EXACTLY',
        searchString: suffix,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    });
    const perAddress = (name: string, priority: number, rateLimit: number, paths: string[]): wafv2.CfnWebACL.RuleProperty => ({
      name,
      priority,
      action: { block: {} },
      statement: {
        rateBasedStatement: {
          limit: rateLimit,
          aggregateKeyType: 'IP',
          scopeDownStatement: paths.length === 1 ? path(paths[0]!) : { orStatement: { statements: paths.map(path) } },
        },
      },
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: `Stagedoor${pascalCase(name)}`, sampledRequestsEnabled: true },
    });
    const acl = new wafv2.CfnWebACL(this, 'RateLimitAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'StagedoorEdge', sampledRequestsEnabled: true },
      rules: [
        perAddress('validate-per-address', 0, limit.valueAsNumber, ['/api/tokens/validate']),
        perAddress('sign-in-per-address', 1, WAF_SIGN_IN_REQUESTS_PER_5_MIN, ['/api/admin/login', '/api/admin/login/second-factor']),
      ],
    });
    acl.cfnOptions.condition = enabled;
    const distribution = this.distribution.node.defaultChild as cloudfront.CfnDistribution;
    distribution.addPropertyOverride('DistributionConfig.WebACLId', Fn.conditionIf(enabled.logicalId, acl.attrArn, Aws.NO_VALUE));
    if (!Token.isUnresolved(this.distribution.stack.region) && this.distribution.stack.region !== 'us-east-1') {
      Annotations.of(this).addWarningV2('stagedoor:waf-region', 'WafValidateRequestsPer5Min works only with the stack in us-east-1 (CloudFront web ACLs live there).');
    }
  }

}

const pascalCase = (name: string) => name.replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase());

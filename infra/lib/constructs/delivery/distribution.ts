import { Annotations, Duration } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import type { DeliveryProps } from './props';
import type { ApiPolicies } from './cache-policies';
import type { SecurityHeaders } from './response-headers';
import { ORIGIN_VERIFY_HEADER } from './settings';

export interface ViewerDistributionProps extends DeliveryProps {
  directoryIndex: cloudfront.IFunction;
  mediaGuard: cloudfront.IFunction;
  mediaCache: cloudfront.ICachePolicy;
  mediaOriginRequest: cloudfront.IOriginRequestPolicy;
  api: ApiPolicies;
  headers: SecurityHeaders;
}

/** The distribution: the pages by default, `/api/*` to API Gateway, `/streams/*` to the media bucket behind the media guard. */
export function viewerDistribution(scope: Construct, props: ViewerDistributionProps): cloudfront.Distribution {
  const custom = hasCustomDomain(props);
  const distribution = new cloudfront.Distribution(scope, 'Distribution', {
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
          certificate: acm.Certificate.fromCertificateArn(scope, 'Certificate', props.certificateArn!),
          minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
        }
      : {}),
    defaultBehavior: {
      origin: origins.S3BucketOrigin.withOriginAccessControl(props.webBucket),
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: props.headers.pageHeaders,
      functionAssociations: [{ function: props.directoryIndex, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
    },
    additionalBehaviors: {
      '/api/*': {
        origin: apiOrigin(props),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
        cachePolicy: props.api.cachePolicy,
        originRequestPolicy: props.api.originRequestPolicy,
        responseHeadersPolicy: props.headers.apiHeaders,
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
        cachePolicy: props.mediaCache,
        originRequestPolicy: props.mediaOriginRequest,
        responseHeadersPolicy: cloudfront.ResponseHeadersPolicy.CORS_ALLOW_ALL_ORIGINS,
        functionAssociations: [{ function: props.mediaGuard, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
      },
    },
    // A missing playlist is polled every few seconds by the player: do not cache the 404 long.
    errorResponses: [{ httpStatus: 404, ttl: Duration.seconds(1) }],
  });
  // The origin header resolves the secret's originVerifySecret, which the seeding creates.
  distribution.node.addDependency(props.secretReady);
  acknowledgeFindings(distribution, custom);
  return distribution;
}

/** A custom domain needs its certificate; without both the distribution keeps its *.cloudfront.net name. */
export const hasCustomDomain = (props: Pick<DeliveryProps, 'domainName' | 'certificateArn'>): boolean =>
  Boolean(props.domainName && props.certificateArn);

function apiOrigin(props: ViewerDistributionProps): cloudfront.IOrigin {
  return new origins.HttpOrigin(props.apiDomainName, {
    protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
    originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
    // A Secrets Manager dynamic reference: CloudFormation resolves it at deploy time, so the
    // value is in neither the template nor cdk.out. It does end up in the distribution's
    // configuration (readable with cloudfront:GetDistributionConfig), and a new value
    // reaches CloudFront only when the distribution is next updated (docs/deploy.md).
    customHeaders: { [ORIGIN_VERIFY_HEADER]: props.secret.secretValueFromJson('originVerifySecret').unsafeUnwrap() },
  });
}

function acknowledgeFindings(distribution: cloudfront.Distribution, custom: boolean): void {
  // LIST is granted on the media bucket only, which is not behind the default behavior.
  Annotations.of(distribution).acknowledgeWarning(
    '@aws-cdk/aws-cloudfront-origins:listBucketSecurityRisk',
    'LIST is on the media origin (/streams/*, behind the media guard), not on the default behavior.',
  );
  NagSuppressions.addResourceSuppressions(distribution, [
    {
      id: 'AwsSolutions-CFR1',
      reason: 'Ticketed events are sold worldwide: countries are restricted per event (its geo rule, checked by the API and the media guard from CloudFront-Viewer-Country), not for the whole distribution.',
    },
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

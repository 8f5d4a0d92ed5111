import { Duration } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type { Construct } from 'constructs';
import { API_MAX_SHARED_CACHE_SECONDS } from './settings';

/** HLS: the cache key is the path only, so the token (header or ?token=) neither splits the cache nor reaches S3. */
export function mediaCachePolicy(scope: Construct): cloudfront.CachePolicy {
  return new cloudfront.CachePolicy(scope, 'MediaCache', {
    comment: 'HLS: cache key is the path; TTLs follow the objects (playlists 1 s, segments immutable)',
    minTtl: Duration.seconds(0),
    defaultTtl: Duration.seconds(1),
    maxTtl: Duration.days(365),
    queryStringBehavior: cloudfront.CacheQueryStringBehavior.none(),
    headerBehavior: cloudfront.CacheHeaderBehavior.none(),
    cookieBehavior: cloudfront.CacheCookieBehavior.none(),
  });
}

/**
 * HLS: what reaches the media guard and the bucket besides the path. CloudFront adds
 * CloudFront-Viewer-Country (overwriting a viewer's) only where a policy names it, and only then does
 * the viewer-request function see it (the event's country rule, docs/delivery.md). An origin request
 * policy, not the cache key: every country shares one cached copy, the function decides before the cache.
 */
export function mediaOriginRequestPolicy(scope: Construct): cloudfront.OriginRequestPolicy {
  return new cloudfront.OriginRequestPolicy(scope, 'MediaOriginRequest', {
    comment: 'HLS: CloudFront-Viewer-Country for the media guard (country rules); not in the cache key',
    headerBehavior: cloudfront.OriginRequestHeaderBehavior.allowList('CloudFront-Viewer-Country'),
    cookieBehavior: cloudfront.OriginRequestCookieBehavior.none(),
    queryStringBehavior: cloudfront.OriginRequestQueryStringBehavior.none(),
  });
}

export interface ApiPolicies {
  cachePolicy: cloudfront.CachePolicy;
  originRequestPolicy: cloudfront.OriginRequestPolicy;
}

/** What of a viewer's /api/* request is cached on and what reaches API Gateway. */
export function apiPolicies(scope: Construct): ApiPolicies {
  // The API is cached only where a response allows it: every route answers `Cache-Control: no-store`
  // except the public event status and sale (`s-maxage=5`; the status is polled by every waiting page:
  // a million pages cost the origin a few requests a second per edge instead of 200,000/s). The default
  // TTL is 0, so a response without the header (API Gateway's own errors) is not cached either. Authorization has
  // to be in the cache key all the same, because CloudFront forwards it no other way (origin request
  // policies may not name it, and AllViewer would also send Host, which API Gateway rejects). Cookies
  // and query strings are in the key too, so a cached answer only ever goes to callers that sent the
  // same ones (waiting pages send none).
  const cachePolicy = new cloudfront.CachePolicy(scope, 'ApiCache', {
    comment: 'Stagedoor API: cached only as responses allow (event status and sale s-maxage=5; the rest no-store)',
    minTtl: Duration.seconds(0),
    defaultTtl: Duration.seconds(0),
    maxTtl: Duration.seconds(API_MAX_SHARED_CACHE_SECONDS),
    headerBehavior: cloudfront.CacheHeaderBehavior.allowList('Authorization'),
    cookieBehavior: cloudfront.CacheCookieBehavior.all(),
    queryStringBehavior: cloudfront.CacheQueryStringBehavior.all(),
  });
  // What the handlers read besides those (functions/http/request-info.ts, middlewares), plus the
  // viewer's address and country, which CloudFront adds only when a policy names it (and overwrites
  // a client's): the country decides an event's country rule at validate and refresh. Ten headers,
  // the most a policy takes: one more needs a second policy or a managed one. Not Host: API Gateway
  // answers only to its own name. Not X-Forwarded-For: the API never believes it.
  const originRequestPolicy = new cloudfront.OriginRequestPolicy(scope, 'ApiOriginRequest', {
    comment: 'Stagedoor API: the headers the handlers read, and CloudFront-Viewer-Address and -Country',
    headerBehavior: cloudfront.OriginRequestHeaderBehavior.allowList(
      'CloudFront-Viewer-Address',
      'CloudFront-Viewer-Country',
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
  return { cachePolicy, originRequestPolicy };
}

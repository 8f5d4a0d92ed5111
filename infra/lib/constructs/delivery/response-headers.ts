import { Duration } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type { Construct } from 'constructs';
import { API_CONTENT_SECURITY_POLICY, HSTS_MAX_AGE_SECONDS, pageContentSecurityPolicy } from '../../../../web/security-headers';

export interface SecurityHeaders {
  pageHeaders: cloudfront.ResponseHeadersPolicy;
  apiHeaders: cloudfront.ResponseHeadersPolicy;
}

/** The site's security headers (web/security-headers.ts, which local mode sends too), and HSTS. */
export function securityHeaders(scope: Construct): SecurityHeaders {
  const policy = (name: string, comment: string, contentSecurityPolicy: string) =>
    new cloudfront.ResponseHeadersPolicy(scope, name, {
      comment,
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: cloudfront.HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.seconds(HSTS_MAX_AGE_SECONDS), includeSubdomains: true, override: true },
      },
    });
  return {
    // HLS comes from this distribution too (/streams/*): the pages need no other origin.
    pageHeaders: policy('PageHeaders', 'Stagedoor pages: CSP of web/security-headers.ts, no framing, no referrer, HSTS', pageContentSecurityPolicy()),
    apiHeaders: policy('ApiHeaders', 'Stagedoor API: nothing loads, no framing, no referrer, HSTS', API_CONTENT_SECURITY_POLICY),
  };
}

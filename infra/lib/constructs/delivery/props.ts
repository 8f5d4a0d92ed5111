import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { IDependable } from 'constructs';

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

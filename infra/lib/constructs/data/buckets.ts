import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { privateBucketProps } from '../private-bucket';

/** Server access logs of the buckets, CloudFront standard logs and NLB access logs. */
export function accessLogsBucket(scope: Construct): s3.Bucket {
  const bucket = new s3.Bucket(scope, 'LogsBucket', {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    // CloudFront standard logging (legacy) writes with ACLs.
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
    lifecycleRules: [{ expiration: Duration.days(90) }],
    removalPolicy: RemovalPolicy.RETAIN,
  });
  NagSuppressions.addResourceSuppressions(bucket, [{ id: 'AwsSolutions-S1', reason: 'This is the access-logs bucket; logging it into itself would loop.' }]);
  return bucket;
}

/** The HLS the ingest writes (`streams/`) and the recording index (`recordings/`), kept `retentionDays`. */
export function mediaBucket(scope: Construct, logsBucket: s3.IBucket, retentionDays: number): s3.Bucket {
  return new s3.Bucket(scope, 'MediaBucket', {
    ...privateBucketProps(logsBucket, 'media-bucket/'),
    lifecycleRules: [
      { prefix: 'streams/', expiration: Duration.days(retentionDays) },
      // The recording index (docs/ingest.md) lives as long as the media it lists.
      { prefix: 'recordings/', expiration: Duration.days(retentionDays) },
      { abortIncompleteMultipartUploadAfter: Duration.days(1) },
    ],
    removalPolicy: RemovalPolicy.RETAIN,
  });
}

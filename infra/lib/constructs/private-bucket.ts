import * as s3 from 'aws-cdk-lib/aws-s3';

/**
 * What every bucket of the stack but the logs bucket itself is: private, encrypted, reached over
 * TLS only, its server access logged under `logPrefix` in the stack's logs bucket.
 */
export function privateBucketProps(logsBucket: s3.IBucket, logPrefix: string): s3.BucketProps {
  return {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    serverAccessLogsBucket: logsBucket,
    serverAccessLogsPrefix: logPrefix,
  };
}

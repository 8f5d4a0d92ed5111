import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { EXPORT_FILE_DAYS, EXPORT_PREFIX } from '../../../functions/domain/jobs';
import { privateBucketProps } from './private-bucket';

export interface ExportsProps {
  /** Where the bucket's server access logs go (the stack's access-logs bucket). */
  logsBucket: s3.IBucket;
}

/**
 * The files of export jobs (docs/deploy.md, "Code exports"): a private bucket whose
 * CSVs are downloaded only through presigned GETs, kept `EXPORT_FILE_DAYS` days;
 * an upload a job left unfinished is aborted after a day.
 */
export class Exports extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: ExportsProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      ...privateBucketProps(props.logsBucket, 'exports-bucket/'),
      lifecycleRules: [
        { prefix: EXPORT_PREFIX, expiration: Duration.days(EXPORT_FILE_DAYS) },
        { abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /**
   * What both sides of an export do, on export files only: s3:PutObject (begin the upload, write and
   * complete its parts) and s3:GetObject (the size of the finished file, and the presigned download,
   * which S3 checks against the signer's role).
   */
  grantFiles(fn: lambda.IFunction): void {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject', 's3:GetObject'], resources: [this.bucket.arnForObjects(`${EXPORT_PREFIX}*`)] }));
    NagSuppressions.addResourceSuppressions(
      fn.role!,
      [
        {
          id: 'AwsSolutions-IAM5',
          appliesTo: [{ regex: '/^Resource::<.*ExportsBucket.*>\\/exports\\/\\*$/g' }],
          reason: 'Export files of any event and job (exports/<eventId>/<jobId>.csv), nothing else of the exports bucket.',
        },
      ],
      true,
    );
  }
}

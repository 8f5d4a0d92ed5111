import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { AppFunction } from './app-function';
import { TRIGGERS } from '../triggers';

export interface RecordingSweepProps {
  table: dynamodb.ITable;
  mediaBucket: s3.IBucket;
}

/**
 * The recording sweep (functions/handlers/recording-sweep.ts): every minute, the shows whose
 * ingest died mid-show (a publish lease that ran out) get their final playlists, and the lease
 * ends. The one function that writes playlists besides the ingest; no API function touches S3.
 */
export class RecordingSweep extends Construct {
  readonly fn: lambda.IFunction;

  constructor(scope: Construct, id: string, props: RecordingSweepProps) {
    super(scope, id);
    const { schedule } = TRIGGERS['recording-sweep'];

    const { fn } = new AppFunction(this, 'RecordingSweep', {
      entry: 'functions/handlers/recording-sweep.ts',
      description: 'Stagedoor recording sweep: final playlists of shows whose ingest died',
      environment: { TABLE_NAME: props.table.tableName, MEDIA_BUCKET: props.mediaBucket.bucketName },
      // Within the minute: one run ends before the next begins.
      timeout: Duration.seconds(schedule.everySeconds - 10),
    });
    this.fn = fn;

    // Leases from the events listing (one query, no code is read), and ending each: a conditional update of its event.
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: [`${props.table.tableArn}/index/byEvent`] }));
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:UpdateItem'], resources: [props.table.tableArn] }));
    // A show's recording index (recording/, as the ingest wrote it) in, its playlists out.
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [props.mediaBucket.arnForObjects('recordings/*')] }));
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [props.mediaBucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': ['recordings/*'] } },
      }),
    );
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [props.mediaBucket.arnForObjects('streams/*.m3u8')] }));
    NagSuppressions.addResourceSuppressions(
      fn.role!,
      [
        {
          id: 'AwsSolutions-IAM5',
          appliesTo: [{ regex: '/^Resource::<.*MediaBucket.*>\\/(recordings\\/\\*|streams\\/\\*\\.m3u8)$/g' }],
          reason: 'Any event\'s show may need finalizing: read its recording index, write its playlists, nothing else of the bucket.',
        },
        {
          id: 'AwsSolutions-IAM5',
          appliesTo: [{ regex: '/^Resource::.*/index/byEvent$/g' }],
          reason: 'Query on the events listing index of the one table only.',
        },
      ],
      true,
    );

    new events.Rule(this, 'Schedule', {
      description: 'Stagedoor recording sweep',
      schedule: events.Schedule.rate(Duration.seconds(schedule.everySeconds)),
      // The next run is the retry: a delivery that failed is not repeated.
      targets: [new targets.LambdaFunction(fn, { retryAttempts: schedule.retryAttempts })],
    });
  }
}

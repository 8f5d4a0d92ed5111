import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { JOB_MAX_RECEIVES, JOB_WORKER } from '../../../functions/domain/jobs';
import { AppFunction } from './app-function';
import { TRIGGERS } from '../triggers';
import type { Exports } from './exports';

export interface JobsProps {
  table: dynamodb.ITable;
  /** Where export jobs write their files. */
  exports: Exports;
  /** The commerce secret: its Stripe key refunds a cancelled show's orders. */
  commerceSecret: secretsmanager.ISecret;
}

/**
 * Background jobs (docs/deploy.md, "Background jobs"): a queue of job steps,
 * its dead-letter queue, and the worker Lambda that runs the steps (SQS event
 * source, partial batch responses, at most `JOB_WORKER.maxConcurrency` steps at
 * once, which is what keeps a job's writes under the table's per-key limits).
 * The admin function starts jobs: `grantStart`.
 */
export class Jobs extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly worker: lambda.IFunction;
  /** Any message in the dead-letter queue: a step was given up and its job reads failed. */
  readonly deadLetterAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: JobsProps) {
    super(scope, id);

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    NagSuppressions.addResourceSuppressions(this.deadLetterQueue, [
      { id: 'AwsSolutions-SQS3', reason: 'This is the dead-letter queue of the jobs queue; messages given up here wait for a redrive.' },
    ]);
    this.queue = new sqs.Queue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(JOB_WORKER.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(4),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: JOB_MAX_RECEIVES },
    });

    const { fn } = new AppFunction(this, 'Worker', {
      entry: 'functions/handlers/job-worker.ts',
      description: 'Stagedoor jobs: runs the steps of background jobs (code generation, exports, event deletion, revocation by filter, a cancelled show)',
      environment: {
        TABLE_NAME: props.table.tableName,
        JOBS_QUEUE_URL: this.queue.queueUrl,
        EXPORT_BUCKET: props.exports.bucket.bucketName,
        COMMERCE_SECRETS_ARN: props.commerceSecret.secretArn,
      },
      timeout: Duration.seconds(JOB_WORKER.timeoutSeconds),
      memorySize: 512,
    });
    this.worker = fn;
    const { queue } = TRIGGERS['job-worker'];
    fn.addEventSource(new SqsEventSource(this.queue, { batchSize: queue.batchSize, maxConcurrency: queue.maxConcurrency, reportBatchItemFailures: queue.reportBatchItemFailures }));
    // What the steps do to the table (functions/domain/*-job.ts through the stores, and the job store): codes
    // created, read, revoked (found by id, counted) and deleted, an event's audience data deleted, the event
    // read and its count raised, a race with (de)activation repaired, audit entries written; a cancelled show's
    // orders listed (byEvent), refunded (the order, its checkout and the event's tickets) and owed their email; a
    // leak trace's sessions read a page of codes at a time (the codes' slots and the tickets' records, BatchGetItem).
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem', 'dynamodb:Query'],
        resources: [props.table.tableArn, ...['codesByEvent', 'byLabel', 'byTokenId', 'byEvent'].map((index) => `${props.table.tableArn}/index/${index}`)],
      }),
    );
    NagSuppressions.addResourceSuppressions(
      fn.role!,
      [{ id: 'AwsSolutions-IAM5', appliesTo: [{ regex: '/^Resource::.*/index/.*$/g' }], reason: 'Query on the codesByEvent, byLabel, byTokenId and byEvent indexes of the one table only.' }],
      true,
    );
    // Stripe's key, for a cancelled show's refunds.
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [props.commerceSecret.secretArn] }));
    // Each step sends the next one of its lane.
    this.grantStart(fn);
    // Export steps write their parts and complete the file.
    props.exports.grantFiles(fn);

    this.deadLetterAlarm = this.deadLetterQueue
      .metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' })
      .createAlarm(this, 'DeadLetters', {
        alarmDescription: 'Stagedoor jobs: a job step was given up (dead-letter queue); its job reads failed. See docs/deploy.md, "Background jobs".',
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
  }

  /** Lets `fn` queue job steps (starting a job sends its lanes' first steps). */
  grantStart(fn: lambda.IFunction): void {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
  }
}

import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, type SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NagSuppressions } from 'cdk-nag';
import type { TableStreamTrigger } from '../triggers';

/**
 * Feeds `fn` from the table's stream as its trigger (infra/lib/triggers.ts) says: the records its filters
 * let through, in its batches and retries, a failing batch bisected; `onFailure` with a trigger that hands
 * its failures on. npm start drives the same trigger (local/triggers.ts).
 */
export function addTableStreamSource(fn: lambda.Function, table: dynamodb.ITable, trigger: TableStreamTrigger, options: { onFailure?: SqsDlq } = {}): void {
  if ((trigger.onFailure === 'failure-queue') !== Boolean(options.onFailure)) throw new Error('a failure queue is given exactly when the trigger hands its failures on');
  fn.addEventSource(
    new DynamoEventSource(table, {
      startingPosition: lambda.StartingPosition.LATEST,
      batchSize: trigger.batchSize,
      ...(trigger.batchingWindowSeconds ? { maxBatchingWindow: Duration.seconds(trigger.batchingWindowSeconds) } : {}),
      retryAttempts: trigger.retryAttempts,
      bisectBatchOnError: true,
      ...(options.onFailure ? { onFailure: options.onFailure } : {}),
      filters: trigger.filters.map((pattern) => lambda.FilterCriteria.filter(pattern)),
    }),
  );
  NagSuppressions.addResourceSuppressions(
    fn.role!,
    [{ id: 'AwsSolutions-IAM5', appliesTo: ['Resource::*'], reason: 'dynamodb:ListStreams (added by the DynamoDB event source) has no resource-level permissions.' }],
    true,
  );
}

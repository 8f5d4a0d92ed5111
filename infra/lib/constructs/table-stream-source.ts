import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, type SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NagSuppressions } from 'cdk-nag';

/** How a function is fed from the table's stream; npm start reads the same settings (local/stream-trigger.ts). */
export interface TableStreamSettings {
  keyPrefixes: readonly string[];
  batchSize: number;
  retryAttempts: number;
  batchingWindowSeconds?: number;
}

/**
 * Feeds `fn` from the table's stream: the items whose `pk` starts with one of the settings' prefixes
 * (and match `newImage`, when given), in the settings' batches and retries, a failing batch bisected.
 */
export function addTableStreamSource(
  fn: lambda.Function,
  table: dynamodb.ITable,
  settings: TableStreamSettings,
  options: { newImage?: Record<string, unknown>; onFailure?: SqsDlq } = {},
): void {
  fn.addEventSource(
    new DynamoEventSource(table, {
      startingPosition: lambda.StartingPosition.LATEST,
      batchSize: settings.batchSize,
      ...(settings.batchingWindowSeconds ? { maxBatchingWindow: Duration.seconds(settings.batchingWindowSeconds) } : {}),
      retryAttempts: settings.retryAttempts,
      bisectBatchOnError: true,
      ...(options.onFailure ? { onFailure: options.onFailure } : {}),
      filters: [
        lambda.FilterCriteria.filter({
          dynamodb: {
            Keys: { pk: { S: settings.keyPrefixes.flatMap((prefix) => lambda.FilterRule.beginsWith(prefix)) } },
            ...(options.newImage ? { NewImage: options.newImage } : {}),
          },
        }),
      ],
    }),
  );
  NagSuppressions.addResourceSuppressions(
    fn.role!,
    [{ id: 'AwsSolutions-IAM5', appliesTo: ['Resource::*'], reason: 'dynamodb:ListStreams (added by the DynamoDB event source) has no resource-level permissions.' }],
    true,
  );
}

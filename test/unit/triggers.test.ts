import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { TRIGGERS, type TableStreamTrigger } from '../../infra/lib/triggers';
import { addTableStreamSource } from '../../infra/lib/constructs/table-stream-source';
import { startStreamTrigger } from '../../local/triggers/stream-trigger';
import type { TableStream } from '../../local/table-stream';

const STREAMS = { 'edge-sync': TRIGGERS['edge-sync'].stream, 'audience-recorder': TRIGGERS['audience-recorder'].stream, mailer: TRIGGERS.mailer.stream } as const;

/** The event source mapping the CDK app makes of `trigger`, as CloudFormation gets it. */
function synthesizedMapping(trigger: TableStreamTrigger): Record<string, any> {
  const stack = new Stack(new App(), 'Triggers');
  const table = new dynamodb.Table(stack, 'Table', { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING }, stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES });
  const fn = new lambda.Function(stack, 'Fn', { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => {}') });
  addTableStreamSource(fn, table, trigger, trigger.onFailure ? { onFailure: new SqsDlq(new sqs.Queue(stack, 'Failures')) } : {});
  const mappings = Template.fromStack(stack).findResources('AWS::Lambda::EventSourceMapping');
  return Object.values(mappings)[0]!.Properties;
}

const image = (item: Record<string, unknown>) => marshall(item) as Record<string, AttributeValue>;
const record = (item: Record<string, unknown>): DynamoDBRecord => ({ eventName: 'INSERT', dynamodb: { Keys: image({ pk: item.pk, sk: item.sk }), NewImage: image(item) } });

/** The records npm start's emulator hands the function with `trigger`, of `records` written to a table stream. */
async function emulated(trigger: TableStreamTrigger, records: DynamoDBRecord[]): Promise<string[]> {
  let listener: (record: DynamoDBRecord) => void = () => {};
  const stream: TableStream = { subscribe: (l) => ((listener = l), () => {}) };
  const handed: string[] = [];
  const running = startStreamTrigger({ stream, settings: { ...trigger, batchingWindowSeconds: 0 }, handler: async ({ Records }) => void handed.push(...Records.map((r) => r.dynamodb!.Keys!.pk!.S!)), log: () => {} });
  for (const each of records) listener(each);
  await expect.poll(() => handed.length > 0 || records.length === 0).toBe(true);
  await running.stop();
  return handed;
}

describe('the trigger table, read by the CDK app and by the emulator of npm start', () => {
  it.each(Object.entries(STREAMS))('%s: the CDK app maps the stream with the filters, batch size, window and retries of its trigger', (_, trigger) => {
    const mapping = synthesizedMapping(trigger);
    expect(mapping.FilterCriteria.Filters.map((filter: { Pattern: string }) => JSON.parse(filter.Pattern))).toEqual(trigger.filters);
    expect(mapping).toMatchObject({ BatchSize: trigger.batchSize, MaximumRetryAttempts: trigger.retryAttempts, BisectBatchOnFunctionError: true, StartingPosition: 'LATEST' });
    expect(mapping.MaximumBatchingWindowInSeconds).toBe((trigger as TableStreamTrigger).batchingWindowSeconds);
    expect(Boolean(mapping.DestinationConfig)).toBe(trigger === TRIGGERS.mailer.stream);
  });

  it('npm start hands each function only the records its trigger lets through', async () => {
    const written = [
      record({ pk: 'CODE#A', sk: 'CODE', code: 'A' }),
      record({ pk: 'EVENT#e1', sk: 'EVENT', id: 'e1' }),
      record({ pk: 'RATE#validate#1.2.3.4', sk: 'RATE', n: 1 }),
      record({ pk: 'ORDER#shop#1', sk: 'ORDER', emailStatus: 'pending' }),
      record({ pk: 'ORDER#shop#2', sk: 'ORDER', emailStatus: 'sent' }),
    ];
    expect(await emulated(STREAMS['edge-sync'], written)).toEqual(['CODE#A', 'EVENT#e1']);
    expect(await emulated(STREAMS['audience-recorder'], written)).toEqual(['CODE#A', 'EVENT#e1']);
    expect(await emulated(STREAMS.mailer, written)).toEqual(['ORDER#shop#1']);
  });
});

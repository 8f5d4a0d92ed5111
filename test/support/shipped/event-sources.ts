import { randomUUID } from 'node:crypto';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { FilterPattern } from '../../../infra/lib/triggers';
import type { AwsEndpoint } from './aws-endpoint';
import type { IamModel } from './iam';
import type { LambdaService } from './lambda-functions';
import { LOCAL_ACCOUNT, type StackValues } from './stack-values';
import { handQueueBatch } from '../../../local/triggers/queue-mapping';
import { batchesOf, handBatch } from '../../../local/triggers/stream-mapping';
import { passesFilters } from '../../../local/triggers/filter';

/** Whether API Gateway, EventBridge... may invoke the function: its AWS::Lambda::Permission resources, evaluated. */
export async function serviceMayInvoke(iam: IamModel, service: string, functionArn: string, sourceArn: string): Promise<boolean> {
  const decision = await iam.authorize(
    { name: service, service },
    { action: 'lambda:InvokeFunction', resource: functionArn, context: { 'aws:SourceArn': sourceArn, 'aws:SourceAccount': LOCAL_ACCOUNT.accountId } },
  );
  return decision.allowed;
}

/**
 * A DynamoDB stream event source mapping as Lambda runs it: it reads the table's stream with the
 * function's role (the role needs the stream permissions), keeps the records its filter criteria
 * match and invokes the function with batches of them in Lambda's DynamoDB event shape: the filter
 * and the batch rule of npm start's emulator (local/triggers/filter.ts, local/triggers/stream-mapping.ts).
 */
export class StreamEventSource {
  readonly functionId: string;
  readonly streamArn: string;
  readonly batchSize: number;
  /** `MaximumRetryAttempts` of the mapping (Lambda's default for a stream: until the record expires; here 10). */
  readonly retryAttempts: number;
  private readonly patterns: FilterPattern[];
  private readonly client: DynamoDBStreamsClient;
  private readonly position = new Map<string, string>();
  delivered = 0;
  filteredOut = 0;
  batches = 0;

  constructor(
    readonly id: string,
    values: StackValues,
    lambda: LambdaService,
    endpoint: AwsEndpoint,
    private readonly localStreamArn: string,
  ) {
    const p = values.resolve(values.resource(id).Properties) as Record<string, any>;
    const functionId = lambda.idOf(p.FunctionName);
    if (!functionId) throw new Error(`event source mapping ${id}: function ${p.FunctionName} is not in the template`);
    this.functionId = functionId;
    this.streamArn = p.EventSourceArn;
    this.batchSize = Number(p.BatchSize ?? 100);
    this.retryAttempts = Number(p.MaximumRetryAttempts ?? 10);
    this.patterns = (p.FilterCriteria?.Filters ?? []).map((filter: { Pattern: string }) => JSON.parse(filter.Pattern));
    this.client = new DynamoDBStreamsClient({ endpoint: endpoint.url, region: LOCAL_ACCOUNT.region, credentials: endpoint.credentialsFor(lambda.get(functionId).caller) });
  }

  /** Reads every record written since the last call and hands the matching ones to the function; returns how many. */
  async deliver(invoke: (functionId: string, event: unknown) => Promise<unknown>): Promise<number> {
    const { StreamDescription } = await this.client.send(new DescribeStreamCommand({ StreamArn: this.localStreamArn }));
    const records: Record<string, unknown>[] = [];
    for (const shard of StreamDescription?.Shards ?? []) {
      const after = this.position.get(shard.ShardId!);
      let { ShardIterator: iterator } = await this.client.send(
        new GetShardIteratorCommand({
          StreamArn: this.localStreamArn,
          ShardId: shard.ShardId,
          ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      );
      while (iterator) {
        const page = await this.client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
        for (const record of page.Records ?? []) {
          this.position.set(shard.ShardId!, record.dynamodb!.SequenceNumber!);
          const event = this.asLambdaRecord(record as unknown as Record<string, any>);
          if (this.matches(event)) records.push(event);
          else this.filteredOut++;
        }
        if (!page.Records?.length) break;
        iterator = page.NextShardIterator;
      }
    }
    for (const batch of batchesOf(records, this.batchSize)) {
      await handBatch(batch, this, (event) => invoke(this.functionId, event), {
        retryDelayMs: 0,
        // verify:shipped fails on a batch the function cannot take, where AWS would drop it.
        onDropped: (error) => {
          throw error;
        },
      });
      this.batches++;
    }
    this.delivered += records.length;
    return records.length;
  }

  /** The record as Lambda hands it over: the stream's record, this mapping's ARN and region, dates in epoch seconds. */
  private asLambdaRecord(record: Record<string, any>): Record<string, unknown> {
    const { ApproximateCreationDateTime, ...dynamodb } = record.dynamodb;
    return {
      eventID: record.eventID,
      eventName: record.eventName,
      eventVersion: record.eventVersion,
      eventSource: 'aws:dynamodb',
      awsRegion: LOCAL_ACCOUNT.region,
      dynamodb: { ...dynamodb, ...(ApproximateCreationDateTime ? { ApproximateCreationDateTime: Math.floor(new Date(ApproximateCreationDateTime).getTime() / 1000) } : {}) },
      eventSourceARN: this.streamArn,
    };
  }

  private matches(record: unknown): boolean {
    return passesFilters(this.patterns, record);
  }
}

/**
 * An SQS event source mapping as Lambda runs it: it receives from the queue with the function's
 * role (the role needs the queue's consume permissions) and hands each batch of the mapping's size
 * over by the rule of npm start's worker (local/triggers/queue-mapping.ts): what was handled is deleted, a
 * failed invocation's messages come back after their visibility timeout, and the queue's redrive
 * policy moves a message received too often to its dead-letter queue, as in AWS.
 */
export class QueueEventSource {
  readonly functionId: string;
  readonly queueArn: string;
  readonly batchSize: number;
  readonly reportsItemFailures: boolean;
  /** `ScalingConfig.MaximumConcurrency`: reported (one instance per function runs here). */
  readonly maxConcurrency: number | undefined;
  private readonly queueUrl: string;
  private readonly client: SQSClient;
  private readonly functionTimeoutSeconds: number;
  delivered = 0;
  batches = 0;
  /** Messages given back: listed in a partial batch response, or of an invocation that failed. */
  returned = 0;

  constructor(
    readonly id: string,
    values: StackValues,
    lambda: LambdaService,
    endpoint: AwsEndpoint,
  ) {
    const p = values.resolve(values.resource(id).Properties) as Record<string, any>;
    const functionId = lambda.idOf(p.FunctionName);
    if (!functionId) throw new Error(`event source mapping ${id}: function ${p.FunctionName} is not in the template`);
    const queueId = values.logicalIdOf(p.EventSourceArn);
    if (!queueId) throw new Error(`event source mapping ${id}: queue ${p.EventSourceArn} is not in the template`);
    if (p.FilterCriteria) throw new Error(`event source mapping ${id}: filter criteria on a queue are not driven by verify:shipped (add them to QueueEventSource)`);
    this.functionId = functionId;
    this.queueArn = p.EventSourceArn;
    this.queueUrl = values.ref(queueId);
    this.batchSize = Number(p.BatchSize ?? 10);
    this.reportsItemFailures = (p.FunctionResponseTypes ?? []).includes('ReportBatchItemFailures');
    this.maxConcurrency = p.ScalingConfig?.MaximumConcurrency;
    this.functionTimeoutSeconds = lambda.get(functionId).timeoutSeconds;
    this.client = new SQSClient({ endpoint: endpoint.url, region: LOCAL_ACCOUNT.region, credentials: endpoint.credentialsFor(lambda.get(functionId).caller) });
  }

  /**
   * What CreateEventSourceMapping checks before it accepts the mapping: the function's role may read
   * the queue's attributes, and the queue's visibility timeout is no shorter than the function's
   * timeout (a message would otherwise come back while its invocation still runs).
   */
  async validate(): Promise<void> {
    const { Attributes: attributes = {} } = await this.client.send(new GetQueueAttributesCommand({ QueueUrl: this.queueUrl, AttributeNames: ['VisibilityTimeout'] }));
    const visibility = Number(attributes.VisibilityTimeout);
    if (!(visibility >= this.functionTimeoutSeconds)) {
      throw new Error(`event source mapping ${this.id}: queue visibility timeout ${visibility} s is less than the function's timeout ${this.functionTimeoutSeconds} s (Lambda refuses the mapping)`);
    }
  }

  /** Hands every message visible now to the function, batch by batch, until a receive finds none; returns how many. */
  async deliver(invoke: (functionId: string, event: unknown) => Promise<any>): Promise<number> {
    let count = 0;
    for (;;) {
      const { Messages: messages = [] } = await this.client.send(
        new ReceiveMessageCommand({ QueueUrl: this.queueUrl, MaxNumberOfMessages: Math.min(this.batchSize, 10), WaitTimeSeconds: 0, MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'] }),
      );
      if (messages.length === 0) return count;
      const { returned } = await handQueueBatch({
        client: this.client,
        queueUrl: this.queueUrl,
        queueArn: this.queueArn,
        messages,
        reportBatchItemFailures: this.reportsItemFailures,
        invoke: (event) => invoke(this.functionId, event),
      });
      count += messages.length;
      this.delivered += messages.length;
      this.returned += returned;
      this.batches++;
    }
  }
}

/** An AWS::Events::Rule schedule: what EventBridge sends its Lambda targets when it fires. */
export function scheduledEvent(values: StackValues, ruleId: string): { targets: { functionArn: string; event: unknown }[]; ruleArn: string; schedule: string } {
  const p = values.resolve(values.resource(ruleId).Properties) as Record<string, any>;
  const ruleArn = values.getAtt(ruleId, 'Arn');
  const event = {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: LOCAL_ACCOUNT.accountId,
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: LOCAL_ACCOUNT.region,
    resources: [ruleArn],
    detail: {},
  };
  const targets = (p.Targets ?? []).map((target: { Arn: string; Input?: string }) => ({
    functionArn: target.Arn,
    event: target.Input ? JSON.parse(target.Input) : event,
  }));
  return { targets, ruleArn, schedule: p.ScheduleExpression ?? JSON.stringify(p.EventPattern) };
}

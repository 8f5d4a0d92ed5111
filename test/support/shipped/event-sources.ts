import { randomUUID } from 'node:crypto';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { AwsEndpoint } from './aws-endpoint';
import type { IamModel } from './iam';
import type { LambdaService } from './lambda-functions';
import { LOCAL_ACCOUNT, type StackValues } from './stack-values';

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
 * match, and invokes the function with batches of them in Lambda's DynamoDB event shape.
 */
export class StreamEventSource {
  readonly functionId: string;
  readonly streamArn: string;
  readonly batchSize: number;
  private readonly patterns: unknown[];
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
    for (let i = 0; i < records.length; i += this.batchSize) {
      await invoke(this.functionId, { Records: records.slice(i, i + this.batchSize) });
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
    return this.patterns.length === 0 || this.patterns.some((pattern) => matchesFilter(pattern, record));
  }
}

/** Lambda's event filtering (the EventBridge pattern syntax): the rules this project uses, and an error for the others. */
export function matchesFilter(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) {
    const candidates = Array.isArray(value) ? value : [value];
    return pattern.some((rule) => candidates.some((candidate) => matchesRule(rule, candidate)));
  }
  if (pattern && typeof pattern === 'object') {
    return Object.entries(pattern).every(([key, inner]) => matchesFilter(inner, value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined));
  }
  throw new Error(`filter pattern ${JSON.stringify(pattern)}: values must be arrays`);
}

function matchesRule(rule: unknown, value: unknown): boolean {
  if (rule === null || typeof rule !== 'object') return rule === value;
  const [operator, operand] = Object.entries(rule)[0]!;
  switch (operator) {
    case 'prefix':
      return typeof value === 'string' && value.startsWith(String(operand));
    case 'suffix':
      return typeof value === 'string' && value.endsWith(String(operand));
    case 'exists':
      return (value !== undefined) === operand;
    case 'anything-but':
      return value !== undefined && ![operand].flat().includes(value);
    case 'equals-ignore-case':
      return typeof value === 'string' && value.toLowerCase() === String(operand).toLowerCase();
    default:
      throw new Error(`filter rule ${operator} is not implemented in test/support/shipped/event-sources.ts`);
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

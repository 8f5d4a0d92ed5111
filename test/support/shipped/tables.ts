import {
  CreateTableCommand,
  DescribeTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type CreateTableCommandInput,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { localStreamArn } from './aws-endpoint';
import type { StackValues } from './stack-values';

/** What one table became, for the step's report. */
export interface CreatedTable {
  id: string;
  name: string;
  summary: string;
  indexes: number;
  /** The stream's ARN as DynamoDB Local names it (the template's StreamArn is the local account's). */
  localStreamArn?: string;
}

/**
 * Creates AWS::DynamoDB::Table `id` in DynamoDB Local from the template's own properties: key
 * schema, attribute definitions, global and local secondary indexes with their projections,
 * billing mode, the stream and the TTL attribute. The project's table code is not involved.
 */
export async function createTableFromTemplate(client: DynamoDBClient, values: StackValues, id: string): Promise<CreatedTable> {
  const p = values.resolve(values.resource(id).Properties ?? {}) as Record<string, any>;
  const name = values.ref(id);
  const provisioned = p.BillingMode !== 'PAY_PER_REQUEST';
  const throughput = (given: { ReadCapacityUnits: number; WriteCapacityUnits: number } | undefined) =>
    provisioned ? { ProvisionedThroughput: given ?? { ReadCapacityUnits: 5, WriteCapacityUnits: 5 } } : {};
  const input: CreateTableCommandInput = {
    TableName: name,
    AttributeDefinitions: p.AttributeDefinitions,
    KeySchema: p.KeySchema,
    BillingMode: p.BillingMode ?? 'PROVISIONED',
    ...throughput(p.ProvisionedThroughput),
    ...(p.GlobalSecondaryIndexes
      ? {
          GlobalSecondaryIndexes: p.GlobalSecondaryIndexes.map((index: Record<string, any>) => ({
            IndexName: index.IndexName,
            KeySchema: index.KeySchema,
            Projection: index.Projection,
            ...throughput(index.ProvisionedThroughput),
          })),
        }
      : {}),
    ...(p.LocalSecondaryIndexes ? { LocalSecondaryIndexes: p.LocalSecondaryIndexes } : {}),
    ...(p.StreamSpecification ? { StreamSpecification: { StreamEnabled: true, StreamViewType: p.StreamSpecification.StreamViewType } } : {}),
  };
  try {
    await client.send(new CreateTableCommand(input));
  } catch (error) {
    throw new Error(`DynamoDB refuses table ${id} as the template declares it: ${(error as Error).message}`);
  }
  await waitUntilTableExists({ client, minDelay: 0.1, maxDelay: 1, maxWaitTime: 60 }, { TableName: name });
  const ttl = p.TimeToLiveSpecification;
  if (ttl?.Enabled) {
    await client.send(new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: { AttributeName: ttl.AttributeName, Enabled: true } }));
  }
  const { Table: table } = await client.send(new DescribeTableCommand({ TableName: name }));
  if (table?.LatestStreamArn) values.record(id, { attributes: { StreamArn: localStreamArn(table.LatestStreamArn) } });
  const key = (schema: { AttributeName?: string; KeyType?: string }[] = []) => schema.map((k) => k.AttributeName).join('/');
  const indexes = (table?.GlobalSecondaryIndexes ?? []).map((index) => {
    const projection = index.Projection?.ProjectionType === 'INCLUDE' ? `INCLUDE ${index.Projection.NonKeyAttributes?.length} attributes` : index.Projection?.ProjectionType;
    return `${index.IndexName} (${key(index.KeySchema)}, ${projection})`;
  });
  const local = (table?.LocalSecondaryIndexes ?? []).map((index) => `${index.IndexName} (local, ${key(index.KeySchema)})`);
  const parts = [
    `keys ${key(table?.KeySchema)}`,
    `${indexes.length + local.length} indexes${indexes.length + local.length ? `: ${[...indexes, ...local].join(', ')}` : ''}`,
    ttl?.Enabled ? `TTL ${ttl.AttributeName}` : 'no TTL',
    table?.StreamSpecification?.StreamEnabled ? `stream ${table.StreamSpecification.StreamViewType}` : 'no stream',
  ];
  return { id, name, summary: parts.join('; '), indexes: indexes.length + local.length, localStreamArn: table?.LatestStreamArn };
}

import {
  CreateTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  waitUntilTableExists,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import type { TableSchema } from '../functions/adapters/table-schema';

/** Creates the table of `schema` (table-schema.ts) unless it exists, and waits until it is ACTIVE. */
export async function createTable(endpoint: string, tableName: string, schema: TableSchema): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const attributes = new Set<string>([schema.partitionKey, schema.sortKey]);
  for (const index of schema.indexes) {
    attributes.add(index.partitionKey);
    if (index.sortKey) attributes.add(index.sortKey);
  }
  const input: CreateTableCommandInput = {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: schema.partitionKey, KeyType: 'HASH' },
      { AttributeName: schema.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: schema.indexes.length === 0 ? undefined : schema.indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
        ...(index.sortKey ? [{ AttributeName: index.sortKey, KeyType: 'RANGE' as const }] : []),
      ],
      Projection:
        index.projection === 'ALL'
          ? { ProjectionType: 'ALL' as const }
          : { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.projection] },
    })),
  };
  try {
    await client.send(new CreateTableCommand(input));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  try {
    // The stand-ins answer within milliseconds; the waiter's default 20 s first delay would dominate start-up.
    await waitUntilTableExists({ client, minDelay: 0.1, maxDelay: 1, maxWaitTime: 60 }, { TableName: tableName });
  } finally {
    client.destroy();
  }
}

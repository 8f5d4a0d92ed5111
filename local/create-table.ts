import {
  CreateTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  waitUntilTableExists,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import { tableSchema } from '../functions/adapters/table-schema';

/** Creates the table of `tableSchema` unless it exists, and waits until it is ACTIVE. */
export async function createTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const attributes = new Set<string>([tableSchema.partitionKey, tableSchema.sortKey]);
  for (const index of tableSchema.indexes) {
    attributes.add(index.partitionKey);
    if ('sortKey' in index) attributes.add(index.sortKey);
  }
  const input: CreateTableCommandInput = {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: tableSchema.partitionKey, KeyType: 'HASH' },
      { AttributeName: tableSchema.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: tableSchema.indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
        ...('sortKey' in index ? [{ AttributeName: index.sortKey, KeyType: 'RANGE' as const }] : []),
      ],
      Projection: { ProjectionType: 'ALL' },
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

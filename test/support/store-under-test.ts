import { afterAll, beforeAll } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoAccountStore, dynamoStores } from '../../functions/adapters/dynamo-stores';
import type { AdminStores } from '../../functions/compose/stores';
import { memoryStores as inMemory } from './memory-stores';

export interface OpenStores {
  /** Every port, the staff accounts' included (on their own table, as in AWS). */
  stores: AdminStores;
  close(): Promise<void>;
}

/** Opens fresh, empty stores: what the store contract suites run against. */
export type StoreFactory = () => Promise<OpenStores>;

const TABLES = { tableName: 'stagedoor', staffTableName: 'stagedoor-staff' };

/** The DynamoDB adapters on a DynamoDB-compatible server that `start` brings up with both tables created. */
export function dynamoStoresOn(
  start: (tables: { tableName: string; staffTableName: string }) => Promise<{ endpoint: string; close(): Promise<void> }>,
): StoreFactory {
  return async () => {
    const server = await start(TABLES);
    const client = new DynamoDBClient({
      endpoint: server.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    const stores = { ...dynamoStores(documents, TABLES.tableName), accounts: dynamoAccountStore(documents, TABLES.staffTableName) };
    return {
      stores,
      async close() {
        client.destroy();
        await server.close();
      },
    };
  };
}

export const memoryStores: StoreFactory = async () => ({ stores: inMemory(), close: async () => undefined });

/**
 * Opens the stores before the enclosing suite and closes them after. The returned Stores forward
 * each port to the stores opened then, so test bodies use them like any stores.
 */
export function storesForSuite(open: StoreFactory): AdminStores {
  let opened: OpenStores | undefined;
  beforeAll(async () => {
    opened = await open();
  }, 90_000);
  afterAll(async () => opened?.close());
  return new Proxy({} as AdminStores, {
    get(_, port: keyof AdminStores) {
      if (!opened) throw new Error('the stores open in beforeAll: use them inside tests only');
      return opened.stores[port];
    },
  });
}

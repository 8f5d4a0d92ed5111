import { afterAll, beforeAll } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoStore } from '../../functions/adapters/dynamo-store';
import type { Store } from '../../functions/domain/store';
import { MemoryStore } from './memory-store';

export interface OpenStore {
  store: Store;
  close(): Promise<void>;
}

/** Opens a fresh, empty store: what the store contract suites run against. */
export type StoreFactory = () => Promise<OpenStore>;

const TABLE = 'stagedoor';

/** DynamoStore on a DynamoDB-compatible server that `start` brings up with the table created. */
export function dynamoStoreOn(start: (table: string) => Promise<{ endpoint: string; close(): Promise<void> }>): StoreFactory {
  return async () => {
    const server = await start(TABLE);
    const client = new DynamoDBClient({
      endpoint: server.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const store = new DynamoStore(DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }), TABLE);
    return {
      store,
      async close() {
        client.destroy();
        await server.close();
      },
    };
  };
}

export const memoryStore: StoreFactory = async () => ({ store: new MemoryStore(), close: async () => undefined });

/**
 * Opens a store before the enclosing suite and closes it after. The returned Store forwards each
 * call to the store opened then, so test bodies call it like any store.
 */
export function storeForSuite(open: StoreFactory): Store {
  let opened: OpenStore | undefined;
  beforeAll(async () => {
    opened = await open();
  }, 90_000);
  afterAll(async () => opened?.close());
  return new Proxy({} as Store, {
    get(_, method: keyof Store) {
      if (!opened) throw new Error('the store opens in beforeAll: use it inside tests only');
      const store = opened.store;
      return (store[method] as (...args: unknown[]) => unknown).bind(store);
    },
  });
}

import { afterAll, beforeAll } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoJobStore } from '../../functions/adapters/dynamo-job-store';
import { DynamoStore } from '../../functions/adapters/dynamo-store';
import type { JobStore } from '../../functions/domain/job-store';
import type { Store } from '../../functions/domain/store';
import { MemoryJobStore } from './memory-job-store';
import { MemoryStore } from './memory-store';

/** The store and the job store, on one table (jobs count their codes on the event items). */
export interface OpenStore {
  store: Store;
  jobs: JobStore;
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
    const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    return {
      store: new DynamoStore(documents, TABLE),
      jobs: new DynamoJobStore(documents, TABLE),
      async close() {
        client.destroy();
        await server.close();
      },
    };
  };
}

export const memoryStore: StoreFactory = async () => {
  const store = new MemoryStore();
  return { store, jobs: new MemoryJobStore(store), close: async () => undefined };
};

/**
 * Opens a store before the enclosing suite and closes it after. The returned Store forwards each
 * call to the store opened then, so test bodies call it like any store.
 */
export function storeForSuite(open: StoreFactory): Store {
  return storesForSuite(open).store;
}

/** As `storeForSuite`, with the job store on the same table. */
export function storesForSuite(open: StoreFactory): { store: Store; jobs: JobStore } {
  let opened: OpenStore | undefined;
  beforeAll(async () => {
    opened = await open();
  }, 90_000);
  afterAll(async () => opened?.close());
  const forward = <K extends 'store' | 'jobs'>(part: K) =>
    new Proxy({} as OpenStore[K], {
      get(_, method: string) {
        if (!opened) throw new Error('the store opens in beforeAll: use it inside tests only');
        const target = opened[part] as unknown as Record<string, (...args: unknown[]) => unknown>;
        return target[method]!.bind(target);
      },
    });
  return { store: forward('store'), jobs: forward('jobs') };
}

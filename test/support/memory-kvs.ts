import {
  ConflictException,
  DescribeKeyValueStoreCommand,
  ListKeysCommand,
  UpdateKeysCommand,
  type CloudFrontKeyValueStoreClientResolvedConfig,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/client-cloudfront-keyvaluestore';
import type { AwsStub } from 'aws-sdk-client-mock';
import { KvsConflict } from '../../functions/adapters/kvs-writer';
import { createMemoryKeyValueStore } from '../../local/memory-key-value-store';

/**
 * The local in-memory KeyValueStore (local/memory-key-value-store.ts, with CloudFront's ETag rule)
 * behind an aws-sdk-client-mock stub of the SDK client, for the Lambda entry point, which builds
 * its own client. `onList` runs inside each ListKeys call, where a test can slip in another writer.
 */
export function memoryKvs(stub: AwsStub<ServiceInputTypes, ServiceOutputTypes, CloudFrontKeyValueStoreClientResolvedConfig>) {
  const store = createMemoryKeyValueStore();
  const kvs = {
    entries: store.entries,
    onList: undefined as (() => Promise<void> | void) | undefined,
    /** What another writer does: put/delete at the current ETag. */
    async write(puts: Record<string, string>, deletes: string[] = []) {
      await store.update(await store.etag(), Object.entries(puts).map(([key, value]) => ({ key, value })), deletes);
    },
  };
  stub.on(DescribeKeyValueStoreCommand).callsFake(async () => ({ ETag: await store.etag() }));
  stub.on(ListKeysCommand).callsFake(async () => {
    await kvs.onList?.();
    return { Items: [...(await store.listKeys())].map(([Key, Value]) => ({ Key, Value })) };
  });
  stub.on(UpdateKeysCommand).callsFake(async (input: UpdateKeysCommand['input']) => {
    try {
      const puts = (input.Puts ?? []).map((p) => ({ key: p.Key!, value: p.Value! }));
      const ETag = await store.update(input.IfMatch!, puts, (input.Deletes ?? []).map((d) => d.Key!));
      return { ETag, ItemCount: store.entries.size, TotalSizeInBytes: 0 };
    } catch (error) {
      if (error instanceof KvsConflict) throw new ConflictException({ message: error.message, $metadata: {} });
      throw error;
    }
  });
  return kvs;
}

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

/**
 * A CloudFront KeyValueStore in memory behind an aws-sdk-client-mock stub,
 * with the real ETag rule: every UpdateKeys names the current ETag or fails
 * with ConflictException. `onList` runs inside each ListKeys call, where a
 * test can slip in another writer.
 */
export function memoryKvs(stub: AwsStub<ServiceInputTypes, ServiceOutputTypes, CloudFrontKeyValueStoreClientResolvedConfig>) {
  const entries = new Map<string, string>();
  let version = 1;
  const etag = () => `etag-${version}`;
  const kvs = {
    entries,
    onList: undefined as (() => Promise<void> | void) | undefined,
    /** What another writer does: put/delete at the current ETag. */
    write(puts: Record<string, string>, deletes: string[] = []) {
      for (const [key, value] of Object.entries(puts)) entries.set(key, value);
      for (const key of deletes) entries.delete(key);
      version++;
    },
  };
  stub.on(DescribeKeyValueStoreCommand).callsFake(async () => ({ ETag: etag() }));
  stub.on(ListKeysCommand).callsFake(async () => {
    await kvs.onList?.();
    return { Items: [...entries].map(([Key, Value]) => ({ Key, Value })) };
  });
  stub.on(UpdateKeysCommand).callsFake(async (input: UpdateKeysCommand['input']) => {
    if (input.IfMatch !== etag()) throw new ConflictException({ message: 'ETag mismatch', $metadata: {} });
    kvs.write(Object.fromEntries((input.Puts ?? []).map((p) => [p.Key!, p.Value!])), (input.Deletes ?? []).map((d) => d.Key!));
    return { ETag: etag(), ItemCount: entries.size, TotalSizeInBytes: 0 };
  });
  return kvs;
}

import { KVS_UPDATE_LIMIT, KvsConflict, type KeyValueStoreApi } from '../functions/adapters/kvs-writer';

/** CloudFront's limits: keys up to 512 bytes, values up to 1 KB, 5 MB per store. */
const MAX_KEY_BYTES = 512;
const MAX_VALUE_BYTES = 1024;
const MAX_STORE_BYTES = 5 * 1024 * 1024;

/**
 * A CloudFront KeyValueStore in memory: the local edge's. Writers get CloudFront's API and its rules
 * (every update names the current ETag or fails with a conflict, at most 50 keys per update, the
 * size limits), so edge-sync's writer runs here as it runs on CloudFront; the edge function reads
 * `entries`.
 */
export interface MemoryKeyValueStore extends KeyValueStoreApi {
  readonly entries: ReadonlyMap<string, string>;
}

export function createMemoryKeyValueStore(): MemoryKeyValueStore {
  const entries = new Map<string, string>();
  let version = 0;
  let bytes = 0;
  const etag = () => `memory-${version}`;
  const size = (key: string, value: string | undefined) => (value === undefined ? 0 : Buffer.byteLength(key) + Buffer.byteLength(value));

  return {
    entries,
    async etag() {
      return etag();
    },
    async listKeys() {
      return new Map(entries);
    },
    async update(ifMatch, puts, deletes) {
      if (ifMatch !== etag()) throw new KvsConflict(`ETag ${ifMatch} is not the store's (${etag()})`);
      if (puts.length + deletes.length > KVS_UPDATE_LIMIT) throw new Error(`ValidationException: more than ${KVS_UPDATE_LIMIT} keys in one update`);
      let after = bytes;
      for (const { key, value } of puts) {
        if (Buffer.byteLength(key) > MAX_KEY_BYTES || key === '') throw new Error(`ValidationException: key of ${Buffer.byteLength(key)} bytes`);
        if (Buffer.byteLength(value) > MAX_VALUE_BYTES) throw new Error(`ValidationException: value of ${key} over ${MAX_VALUE_BYTES} bytes`);
        after += size(key, value) - size(key, entries.get(key));
      }
      for (const key of deletes) after -= size(key, entries.get(key));
      if (after > MAX_STORE_BYTES) throw new Error('ServiceQuotaExceededException: the store would exceed 5 MB');
      // All or nothing, as UpdateKeys: checked above, applied here without a pause.
      for (const key of deletes) entries.delete(key);
      for (const { key, value } of puts) entries.set(key, value);
      bytes = after;
      version++;
      return etag();
    },
  };
}

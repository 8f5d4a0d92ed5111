import type { ServiceAnswer } from './secrets-manager';

/** CloudFront KeyValueStore quotas (CloudFront developer guide, "Quotas"): the service refuses writes past them. */
export const KVS_LIMITS = { keyBytes: 512, valueBytes: 1024, storeBytes: 5 * 1024 * 1024, changesPerUpdate: 50 } as const;

interface Store {
  entries: Map<string, string>;
  version: number;
  created: Date;
  modified: Date;
}

const restError = (status: number, type: string, message: string): ServiceAnswer => ({
  status,
  headers: { 'content-type': 'application/json', 'x-amzn-errortype': type },
  body: JSON.stringify({ message, Message: message }),
});

/**
 * The KeyValueStore API (cloudfront-keyvaluestore, REST/JSON) over the stores the template
 * declares, with its ETag rule (every write names the current ETag) and its size quotas.
 */
export class KeyValueStoreStandIn {
  private readonly stores = new Map<string, Store>();
  /** Every key the writers wrote, with its largest value: for the size report. */
  readonly written = new Map<string, number>();

  create(arn: string): void {
    this.stores.set(arn, { entries: new Map(), version: 1, created: new Date(), modified: new Date() });
  }

  entries(arn: string): ReadonlyMap<string, string> {
    return this.store(arn).entries;
  }

  private store(arn: string): Store {
    const store = this.stores.get(arn);
    if (!store) throw new Error(`no KeyValueStore ${arn}`);
    return store;
  }

  handle(method: string, url: URL, headers: Record<string, string | string[] | undefined>, body: string): ServiceAnswer {
    const match = /^\/key-value-stores\/([^/]+)(\/keys)?$/.exec(url.pathname);
    const arn = match ? decodeURIComponent(match[1]!) : '';
    const store = this.stores.get(arn);
    if (!store) return restError(404, 'ResourceNotFoundException', `KeyValueStore ${arn} not found`);
    const etag = `ETAG${store.version}`;
    const size = () => [...store.entries].reduce((sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value), 0);
    const answer = (payload: unknown, withEtag = true): ServiceAnswer => ({
      status: 200,
      headers: { 'content-type': 'application/json', ...(withEtag ? { etag: `ETAG${store.version}` } : {}) },
      body: JSON.stringify(payload),
    });
    if (method === 'GET' && !match![2]) {
      return answer({
        KvsARN: arn,
        ItemCount: store.entries.size,
        TotalSizeInBytes: size(),
        Created: store.created.getTime() / 1000,
        LastModified: store.modified.getTime() / 1000,
        Status: 'READY',
      });
    }
    if (method === 'GET') {
      const keys = [...store.entries.keys()].sort();
      const start = Number(url.searchParams.get('NextToken') ?? 0);
      const max = Number(url.searchParams.get('MaxResults') ?? 50);
      const page = keys.slice(start, start + max);
      return answer({ Items: page.map((Key) => ({ Key, Value: store.entries.get(Key) })), ...(start + max < keys.length ? { NextToken: String(start + max) } : {}) }, false);
    }
    if (method === 'POST') {
      if (headers['if-match'] !== etag) return restError(409, 'ConflictException', 'Pre-condition failed: the ETag does not match the current one');
      const { Puts = [], Deletes = [] } = JSON.parse(body || '{}') as { Puts?: { Key: string; Value: string }[]; Deletes?: { Key: string }[] };
      if (Puts.length + Deletes.length > KVS_LIMITS.changesPerUpdate) {
        return restError(400, 'ValidationException', `at most ${KVS_LIMITS.changesPerUpdate} puts and deletes per UpdateKeys`);
      }
      for (const { Key, Value } of Puts) {
        if (Buffer.byteLength(Key) > KVS_LIMITS.keyBytes) return restError(400, 'ValidationException', `key of ${Buffer.byteLength(Key)} bytes is over ${KVS_LIMITS.keyBytes}: ${Key.slice(0, 60)}…`);
        if (Buffer.byteLength(Value) > KVS_LIMITS.valueBytes) return restError(400, 'ValidationException', `value of key ${Key} is ${Buffer.byteLength(Value)} bytes, over ${KVS_LIMITS.valueBytes}`);
      }
      const next = new Map(store.entries);
      for (const { Key } of Deletes) next.delete(Key);
      for (const { Key, Value } of Puts) next.set(Key, Value);
      const total = [...next].reduce((sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value), 0);
      if (total > KVS_LIMITS.storeBytes) return restError(400, 'ServiceQuotaExceededException', `the store would hold ${total} bytes, over ${KVS_LIMITS.storeBytes}`);
      // In place: the CloudFront Functions that read the store hold this map.
      for (const { Key } of Deletes) store.entries.delete(Key);
      for (const { Key, Value } of Puts) store.entries.set(Key, Value);
      for (const { Key, Value } of Puts) this.written.set(Key, Math.max(this.written.get(Key) ?? 0, Buffer.byteLength(Value)));
      store.version++;
      store.modified = new Date();
      return answer({ ItemCount: store.entries.size, TotalSizeInBytes: total });
    }
    return restError(400, 'ValidationException', `the KeyValueStore stand-in of verify:shipped has no ${method} ${url.pathname}`);
  }
}

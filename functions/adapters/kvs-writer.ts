// The KeyValueStore API accepts only SigV4a signatures. This registers the SDK's
// pure-JS signer; the alternative (@aws-sdk/signature-v4-crt) pulls in the native
// aws-crt binary, which esbuild cannot bundle into a Lambda.
import '@aws-sdk/signature-v4a';
import {
  CloudFrontKeyValueStoreClient,
  DescribeKeyValueStoreCommand,
  ListKeysCommand,
  UpdateKeysCommand,
} from '@aws-sdk/client-cloudfront-keyvaluestore';
import { diffEntries, type KvsChange } from './kvs-entries';

/** UpdateKeys takes at most 50 puts and deletes per call. */
const BATCH_SIZE = 50;

export interface KvsWriter {
  /** Applies changes (last one per key wins); returns how many keys were written. */
  apply(changes: KvsChange[]): Promise<number>;
  /**
   * Makes the store hold exactly the desired entries among this project's keys; returns how many keys changed.
   * `desired` is read in every attempt after the ETag is taken: a stream write that lands before the ETag is
   * in the table already (so in `desired`), and one that lands after it makes our write fail and retry.
   */
  reconcile(desired: () => Promise<ReadonlyMap<string, string>>): Promise<number>;
}

export interface KvsWriterOptions {
  client: CloudFrontKeyValueStoreClient;
  kvsArn: string;
  /** Attempts per apply/reconcile when another writer moved the ETag in between. */
  maxAttempts?: number;
  /** Base of the jittered exponential pause between attempts. */
  retryDelayMs?: number;
}

/**
 * Every write names the ETag it was computed against (If-Match), so two writers
 * (the stream handler and the schedule) never interleave blindly: the loser of a
 * race gets ConflictException, reads the new ETag and tries again.
 */
export function createKvsWriter(options: KvsWriterOptions): KvsWriter {
  const { client, kvsArn: KvsARN } = options;
  const maxAttempts = options.maxAttempts ?? 6;
  const retryDelayMs = options.retryDelayMs ?? 100;

  async function currentETag(): Promise<string> {
    const { ETag } = await client.send(new DescribeKeyValueStoreCommand({ KvsARN }));
    if (!ETag) throw new Error('DescribeKeyValueStore returned no ETag');
    return ETag;
  }

  async function listAll(): Promise<Map<string, string>> {
    const entries = new Map<string, string>();
    let NextToken: string | undefined;
    do {
      const page = await client.send(new ListKeysCommand({ KvsARN, NextToken, MaxResults: 50 }));
      for (const item of page.Items ?? []) if (item.Key !== undefined) entries.set(item.Key, item.Value ?? '');
      NextToken = page.NextToken;
    } while (NextToken);
    return entries;
  }

  /** Writes `pending` batch by batch, removing each batch once it landed, so a retry resends only the rest. */
  async function writeBatches(pending: KvsChange[], ifMatch: string): Promise<void> {
    let etag = ifMatch;
    while (pending.length > 0) {
      const batch = pending.slice(0, BATCH_SIZE);
      const output = await client.send(
        new UpdateKeysCommand({
          KvsARN,
          IfMatch: etag,
          Puts: batch.flatMap((change) => (change.value === null ? [] : [{ Key: change.key, Value: change.value }])),
          Deletes: batch.flatMap((change) => (change.value === null ? [{ Key: change.key }] : [])),
        }),
      );
      pending.splice(0, batch.length);
      if (!output.ETag) throw new Error('UpdateKeys returned no ETag');
      etag = output.ETag;
    }
  }

  async function retryOnConflict(attempt: () => Promise<void>): Promise<void> {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        if (!isConflict(error) || n >= maxAttempts) throw error;
        await pause(retryDelayMs * 2 ** (n - 1) * (0.5 + Math.random()));
      }
    }
  }

  return {
    async apply(changes) {
      const pending = [...new Map(changes.map((change) => [change.key, change])).values()];
      const count = pending.length;
      if (count > 0) await retryOnConflict(async () => writeBatches(pending, await currentETag()));
      return count;
    },
    async reconcile(desired) {
      let count = 0;
      await retryOnConflict(async () => {
        const etag = await currentETag();
        const wanted = await desired();
        const changes = diffEntries(await listAll(), wanted);
        count += changes.length;
        await writeBatches(changes, etag);
      });
      return count;
    },
  };
}

function isConflict(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConflictException';
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

import { diffEntries, type KvsChange } from './kvs-entries';

/** UpdateKeys takes at most 50 puts and deletes per call. */
export const KVS_UPDATE_LIMIT = 50;

/**
 * The CloudFront KeyValueStore API the writer needs, in its own terms: the CloudFront service
 * (kvs-cloudfront.ts) in AWS, a map in memory locally (local/memory-key-value-store.ts).
 */
export interface KeyValueStoreApi {
  /** The store's current ETag: the version every write must name. */
  etag(): Promise<string>;
  /** Every key and its value. */
  listKeys(): Promise<Map<string, string>>;
  /** Puts and deletes at most KVS_UPDATE_LIMIT keys if the store is still at `ifMatch`; the new ETag. KvsConflict if it moved. */
  update(ifMatch: string, puts: { key: string; value: string }[], deletes: string[]): Promise<string>;
}

/** Another writer moved the ETag since it was read (CloudFront's ConflictException). */
export class KvsConflict extends Error {
  override readonly name = 'KvsConflict';
}

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
  store: KeyValueStoreApi;
  /** Attempts per apply/reconcile when another writer moved the ETag in between. */
  maxAttempts?: number;
  /** Base of the jittered exponential pause between attempts. */
  retryDelayMs?: number;
}

/**
 * Every write names the ETag it was computed against (If-Match), so two writers
 * (the stream handler and the schedule) never interleave blindly: the loser of a
 * race gets a conflict, reads the new ETag and tries again.
 */
export function createKvsWriter(options: KvsWriterOptions): KvsWriter {
  const { store } = options;
  const maxAttempts = options.maxAttempts ?? 6;
  const retryDelayMs = options.retryDelayMs ?? 100;

  /** Writes `pending` batch by batch, removing each batch once it landed, so a retry resends only the rest. */
  async function writeBatches(pending: KvsChange[], ifMatch: string): Promise<void> {
    let etag = ifMatch;
    while (pending.length > 0) {
      const batch = pending.slice(0, KVS_UPDATE_LIMIT);
      etag = await store.update(
        etag,
        batch.flatMap((change) => (change.value === null ? [] : [{ key: change.key, value: change.value }])),
        batch.flatMap((change) => (change.value === null ? [change.key] : [])),
      );
      pending.splice(0, batch.length);
    }
  }

  async function retryOnConflict(attempt: () => Promise<void>): Promise<void> {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof KvsConflict) || n >= maxAttempts) throw error;
        await pause(retryDelayMs * 2 ** (n - 1) * (0.5 + Math.random()));
      }
    }
  }

  return {
    async apply(changes) {
      const pending = [...new Map(changes.map((change) => [change.key, change])).values()];
      const count = pending.length;
      if (count > 0) await retryOnConflict(async () => writeBatches(pending, await store.etag()));
      return count;
    },
    async reconcile(desired) {
      let count = 0;
      await retryOnConflict(async () => {
        const etag = await store.etag();
        const wanted = await desired();
        const changes = diffEntries(await store.listKeys(), wanted);
        count += changes.length;
        await writeBatches(changes, etag);
      });
      return count;
    },
  };
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

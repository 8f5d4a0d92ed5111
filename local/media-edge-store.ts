import { changesFromFeed, isExpiredDenyEntry, signingKeyEntries } from '../functions/adapters/kvs-entries';
import { isDenyKey } from '../functions/adapters/kvs-scheme';
import type { RevocationFeed } from '../functions/domain/revocation-feed';
import type { SigningKeys } from '../functions/domain/signing-keys';

/**
 * What `cf.kvs()` hands a CloudFront Function (runtime 2.0): read-only `get`, which rejects for a
 * missing key as the real one does, `exists` and `meta`.
 */
export interface EdgeKvsHandle {
  get(key: string, options?: { format?: 'string' | 'json' | 'bytes' }): Promise<unknown>;
  exists(key: string): Promise<boolean>;
  meta(): Promise<{ creationDateTime: string; lastUpdatedDateTime: string; keyCount: number }>;
}

/** A map read the way a CloudFront Function reads its KeyValueStore. */
export function kvsHandleOf(entries: ReadonlyMap<string, string>): EdgeKvsHandle {
  return {
    async get(key, options) {
      const value = entries.get(key);
      if (value === undefined) throw new Error(`KeyValueStore: key not found: ${key}`);
      if (options?.format === 'json') return JSON.parse(value);
      if (options?.format === 'bytes') return Buffer.from(value);
      return value;
    },
    async exists(key) {
      return entries.has(key);
    },
    async meta() {
      return { creationDateTime: '', lastUpdatedDateTime: '', keyCount: entries.size };
    },
  };
}

/**
 * The local media server's KeyValueStore, the one place it keeps edge state: the signing keys
 * from start-up and the deny entries the revocation feed asked for (kvs-entries.ts, in the scheme
 * of kvs-scheme.ts), expired ones collected at each feed page as the edge-sync Lambda does.
 */
export interface MediaEdgeStore {
  /** What the edge function reads. */
  readonly entries: ReadonlyMap<string, string>;
  applyFeed(feed: RevocationFeed, now: Date): void;
  /** Revoked codes, deactivated events and ended sessions held. */
  denyEntryCount(): number;
}

export function createMediaEdgeStore(signingKeys: SigningKeys): MediaEdgeStore {
  const entries = signingKeyEntries(signingKeys);
  return {
    entries,
    applyFeed(feed, now) {
      for (const { key, value } of changesFromFeed(feed, now)) {
        if (value === null) entries.delete(key);
        else entries.set(key, value);
      }
      for (const [key, value] of entries) if (isExpiredDenyEntry(key, value, now)) entries.delete(key);
    },
    denyEntryCount() {
      let count = 0;
      for (const key of entries.keys()) if (isDenyKey(key)) count++;
      return count;
    },
  };
}

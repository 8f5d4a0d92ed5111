import { LRUCache } from 'lru-cache';

export interface CachedObject {
  body: Buffer;
  contentType: string;
}

/** `null` when the object does not exist. */
export type ReadSegment = (key: string) => Promise<CachedObject | null>;

export interface SegmentCache {
  /** The segment, from memory or else from `read`; concurrent misses on one key share a single read. */
  get(key: string): Promise<CachedObject | null>;
  /** Drops every cached segment whose key starts with `prefix`; returns how many. */
  clearPrefix(prefix: string): number;
  readonly size: number;
}

/**
 * In-memory LRU of immutable media segments, bounded in bytes (an object larger
 * than the bound is served but not kept). Missing objects and failed reads are
 * not cached, so the next request asks the origin again.
 */
export function createSegmentCache(maxBytes: number, read: ReadSegment): SegmentCache {
  const cache = new LRUCache<string, CachedObject>({
    maxSize: maxBytes,
    sizeCalculation: (entry) => Math.max(1, entry.body.length),
    fetchMethod: async (key) => (await read(key)) ?? undefined,
  });
  return {
    async get(key) {
      return (await cache.fetch(key)) ?? null;
    },
    clearPrefix(prefix) {
      let cleared = 0;
      // keys() skips reads still in flight: those finish and answer their waiting viewers.
      for (const key of [...cache.keys()]) {
        if (key.startsWith(prefix) && cache.delete(key)) cleared++;
      }
      return cleared;
    },
    get size() {
      return cache.size;
    },
  };
}

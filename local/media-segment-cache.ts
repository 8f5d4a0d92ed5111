export interface CachedObject {
  body: Buffer;
  contentType: string;
}

/**
 * In-memory LRU of immutable media segments, bounded in bytes. A Map keeps
 * insertion order, so re-inserting on every hit makes its first key the least
 * recently used one.
 */
export class SegmentCache {
  private readonly entries = new Map<string, CachedObject>();
  private totalBytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): CachedObject | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CachedObject): void {
    if (entry.body.length > this.maxBytes) return;
    this.remove(key);
    this.entries.set(key, entry);
    this.totalBytes += entry.body.length;
    for (const oldest of this.entries.keys()) {
      if (this.totalBytes <= this.maxBytes) break;
      this.remove(oldest);
    }
  }

  /** Drops every entry whose key starts with `prefix`; returns how many. */
  clearPrefix(prefix: string): number {
    let cleared = 0;
    for (const key of [...this.entries.keys()]) {
      if (key.startsWith(prefix)) {
        this.remove(key);
        cleared++;
      }
    }
    return cleared;
  }

  get size(): number {
    return this.entries.size;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.totalBytes -= entry.body.length;
  }
}

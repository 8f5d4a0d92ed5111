import { describe, expect, it } from 'vitest';
import { createSegmentCache, type CachedObject } from '../../local/media-segment-cache';

const segment = (bytes: number): CachedObject => ({ body: Buffer.alloc(bytes), contentType: 'video/mp2t' });

/** An origin of fixed-size segments that counts its reads; `missing` keys do not exist. */
function origin(bytes: number, missing: string[] = []) {
  const reads: string[] = [];
  return {
    reads,
    read: async (key: string) => {
      reads.push(key);
      return missing.includes(key) ? null : segment(bytes);
    },
  };
}

describe('media server segment cache', () => {
  it('evicts the least recently used segments beyond its byte bound', async () => {
    const source = origin(100);
    const cache = createSegmentCache(300, source.read);
    await cache.get('streams/a/1.ts');
    await cache.get('streams/a/2.ts');
    await cache.get('streams/a/3.ts');
    await cache.get('streams/a/1.ts');
    await cache.get('streams/a/4.ts');
    expect(cache.size).toBe(3);
    source.reads.length = 0;
    await cache.get('streams/a/1.ts');
    await cache.get('streams/a/2.ts');
    expect(source.reads).toEqual(['streams/a/2.ts']);
  });

  it('serves but does not keep an object larger than the whole cache', async () => {
    const source = origin(51);
    const cache = createSegmentCache(50, source.read);
    expect((await cache.get('streams/a/big.ts'))?.body.length).toBe(51);
    expect(cache.size).toBe(0);
  });

  it('shares one origin read among concurrent misses on a segment', async () => {
    const source = origin(10);
    const cache = createSegmentCache(1000, source.read);
    const results = await Promise.all(Array.from({ length: 5 }, () => cache.get('streams/a/1.ts')));
    expect(source.reads).toEqual(['streams/a/1.ts']);
    expect(new Set(results).size).toBe(1);
  });

  it('asks the origin again for a missing object or after a failed read', async () => {
    const source = origin(10, ['streams/a/gone.ts']);
    const cache = createSegmentCache(1000, source.read);
    expect(await cache.get('streams/a/gone.ts')).toBeNull();
    expect(await cache.get('streams/a/gone.ts')).toBeNull();
    expect(source.reads).toEqual(['streams/a/gone.ts', 'streams/a/gone.ts']);

    let fail = true;
    const flaky = createSegmentCache(1000, async () => {
      if (fail) throw new Error('origin down');
      return segment(10);
    });
    await expect(flaky.get('streams/a/1.ts')).rejects.toThrow('origin down');
    fail = false;
    expect(await flaky.get('streams/a/1.ts')).not.toBeNull();
  });

  it('clears one event without touching another, and a read in flight still answers', async () => {
    const source = origin(10);
    const cache = createSegmentCache(1000, source.read);
    await cache.get('streams/a/1.ts');
    await cache.get('streams/ab/1.ts');
    let release!: () => void;
    const slow = createSegmentCache(1000, async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return segment(10);
    });
    const pending = slow.get('streams/a/2.ts');
    expect(cache.clearPrefix('streams/a/')).toBe(1);
    slow.clearPrefix('streams/a/');
    release();
    expect(await pending).not.toBeNull();
    source.reads.length = 0;
    await cache.get('streams/ab/1.ts');
    expect(source.reads).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { SegmentCache } from '../../local/media-segment-cache';

const segment = (bytes: number) => ({ body: Buffer.alloc(bytes), contentType: 'video/mp2t' });

describe('media server segment cache', () => {
  it('evicts the least recently used segments beyond its byte bound', () => {
    const cache = new SegmentCache(300);
    cache.set('streams/a/1.ts', segment(100));
    cache.set('streams/a/2.ts', segment(100));
    cache.set('streams/a/3.ts', segment(100));
    cache.get('streams/a/1.ts');
    cache.set('streams/a/4.ts', segment(100));
    expect(cache.get('streams/a/2.ts')).toBeUndefined();
    expect(cache.get('streams/a/1.ts')).toBeDefined();
    expect(cache.size).toBe(3);
  });

  it('skips an object larger than the whole cache', () => {
    const cache = new SegmentCache(50);
    cache.set('streams/a/big.ts', segment(51));
    expect(cache.size).toBe(0);
  });

  it('clears one event without touching another', () => {
    const cache = new SegmentCache(1000);
    cache.set('streams/a/1.ts', segment(10));
    cache.set('streams/ab/1.ts', segment(10));
    expect(cache.clearPrefix('streams/a/')).toBe(1);
    expect(cache.get('streams/ab/1.ts')).toBeDefined();
  });
});

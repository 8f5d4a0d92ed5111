/**
 * Start-up times as a quantile sketch: DDSketch's logarithmic buckets (Masson, Rim and Lee, VLDB
 * 2019). A value v falls in bucket ceil(log_γ v); every value of a bucket is within ±α of the
 * bucket's representative 2γ^i / (γ + 1), where α = (γ − 1) / (γ + 1). Sketches merge by adding
 * counts bucket by bucket, which is what lets many writers keep one in DynamoDB with `ADD` alone
 * (one numeric attribute per bucket) and the console merge any number of minutes and shards.
 *
 * Written here rather than taken from @datadog/sketches-js: its in-memory stores cannot live as
 * table attributes, which is the whole use, and its package requires protobufjs without declaring it.
 */

/** γ = 1.1: α ≈ 4.8 %, and 1 ms to 10 min in 140 buckets. */
const GAMMA = 1.1;
const LOG_GAMMA = Math.log(GAMMA);

/** Bucket counts by index: what one minute (or a merge of many) holds. */
export type Sketch = Map<number, number>;

/** The bucket of `ms` (values under 1 ms share bucket 0). */
export function sketchBucket(ms: number): number {
  return ms <= 1 ? 0 : Math.ceil(Math.log(ms) / LOG_GAMMA);
}

/** The value a bucket stands for: within ±α of every value in it. */
export function bucketValue(index: number): number {
  return index <= 0 ? 1 : (2 * GAMMA ** index) / (GAMMA + 1);
}

/** Adds `other` into `into`. */
export function mergeSketch(into: Sketch, other: Iterable<[number, number]>): Sketch {
  for (const [index, count] of other) into.set(index, (into.get(index) ?? 0) + count);
  return into;
}

/** The value at quantile `q` (0–1), rounded to whole ms; null for an empty sketch. */
export function sketchQuantile(sketch: Sketch, q: number): number | null {
  const buckets = [...sketch].filter(([, count]) => count > 0).sort(([a], [b]) => a - b);
  const total = buckets.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return null;
  // The rank of the value wanted, as DDSketch counts it: the q-th of the sorted values, 0-based.
  const rank = q * (total - 1);
  let seen = 0;
  for (const [index, count] of buckets) {
    seen += count;
    if (seen > rank) return Math.round(bucketValue(index));
  }
  return Math.round(bucketValue(buckets[buckets.length - 1]![0]));
}

import { COUNTER_SHARDS, rateWindow, revocationBucketOf } from '../../functions/adapters/dynamo-counter-store';
import { shardOf } from '../../functions/adapters/dynamo-keys';
import type { CounterStore, EventCounters, RateWindow, RevocationMark } from '../../functions/domain/counter-store';
import { RateLimited } from '../../functions/domain/errors';

/** Presence is counted in buckets of this many seconds, as in DynamoDB. */
const PRESENCE_BUCKET_SECONDS = 10;
const presenceBucket = (iso: string) => Math.floor(Date.parse(iso) / 1000 / PRESENCE_BUCKET_SECONDS);

/**
 * The counters port in memory (memory-stores.ts). What DynamoDB only collects by TTL (rate
 * windows, presence buckets) is kept, as the domain never relies on TTL.
 */
export class MemoryCounterStore implements CounterStore {
  /** Hits by window (the window's DynamoDB key). */
  private readonly rateWindows = new Map<string, number>();
  private readonly totals = new Map<string, { redeemed: number; revoked: number }>();
  /** Per bucket of an event's revoked count (DynamoDB's `rvv#<bucket>` on the code's shard): its version and its codes' marks. */
  private readonly revocations = new Map<string, { version: number; marks: Map<string, RevocationMark> }>();

  private revocationsOf(eventId: string, code: string) {
    const key = `${eventId}#${shardOf(code, COUNTER_SHARDS)}#${revocationBucketOf(code)}`;
    let revocations = this.revocations.get(key);
    if (!revocations) this.revocations.set(key, (revocations = { version: 0, marks: new Map() }));
    return revocations;
  }
  /** Per event: presence bucket → viewers. */
  private readonly presence = new Map<string, Map<number, number>>();

  private totalsOf(eventId: string) {
    let totals = this.totals.get(eventId);
    if (!totals) this.totals.set(eventId, (totals = { redeemed: 0, revoked: 0 }));
    return totals;
  }

  async rateLimitRetryAfter(args: RateWindow): Promise<number | null> {
    const { key, windowEnd, nowSeconds } = rateWindow(args);
    return (this.rateWindows.get(key.pk) ?? 0) >= args.limit ? Math.max(1, windowEnd - nowSeconds) : null;
  }

  async hitRateLimit(args: RateWindow): Promise<void> {
    const { key, windowEnd, nowSeconds } = rateWindow(args);
    const hits = this.rateWindows.get(key.pk) ?? 0;
    if (hits >= args.limit) throw new RateLimited(Math.max(1, windowEnd - nowSeconds));
    this.rateWindows.set(key.pk, hits + 1);
  }

  async countRedemption(args: { eventId: string; code: string; delta: number }): Promise<void> {
    this.totalsOf(args.eventId).redeemed += args.delta;
  }

  async revocationMark(args: { eventId: string; code: string }): Promise<{ version: number; mark: RevocationMark | null }> {
    const { version, marks } = this.revocationsOf(args.eventId, args.code);
    const mark = marks.get(args.code);
    return { version, mark: mark ? { ...mark } : null };
  }

  async countRevocation(args: { eventId: string; code: string; counted: boolean; version: number }): Promise<boolean> {
    const revocations = this.revocationsOf(args.eventId, args.code);
    if (revocations.version !== args.version) return false;
    revocations.version += 1;
    revocations.marks.set(args.code, { counted: args.counted, version: revocations.version });
    this.totalsOf(args.eventId).revoked += args.counted ? 1 : -1;
    return true;
  }

  async forgetRevocationMark(args: { eventId: string; code: string; version: number }): Promise<void> {
    const { marks } = this.revocationsOf(args.eventId, args.code);
    if (marks.get(args.code)?.version === args.version) marks.delete(args.code);
  }

  async countPresence(args: { eventId: string; seed: string; at: string; delta: number }): Promise<void> {
    let buckets = this.presence.get(args.eventId);
    if (!buckets) this.presence.set(args.eventId, (buckets = new Map()));
    const bucket = presenceBucket(args.at);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + args.delta);
  }

  async eventCounters(args: { eventId: string; presenceSince: string }): Promise<EventCounters> {
    const from = presenceBucket(args.presenceSince);
    let presence = 0;
    for (const [bucket, viewers] of this.presence.get(args.eventId) ?? []) if (bucket >= from) presence += viewers;
    return { ...this.totalsOf(args.eventId), presence: Math.max(0, presence) };
  }
}

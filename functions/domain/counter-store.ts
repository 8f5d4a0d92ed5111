/** Sharded counters of an event: redemptions and revocations of its codes, and presence for the viewer estimate. */
export interface EventCounters {
  redeemed: number;
  revoked: number;
  /** Sum of `countPresence` deltas since `presenceSince`. */
  presence: number;
}

/** A fixed window of a rate limit: `key` names the limit and the caller. */
export interface RateWindow {
  key: string;
  limit: number;
  windowSeconds: number;
  now: Date;
}

/**
 * The counters port: rate-limit windows, and an event's counters. The `count*` writes are best
 * effort: they never reject, and the adapter reports a write it lost (a lost one only skews
 * the admin's estimate, and must not fail the viewer's request whose real work is done).
 */
export interface CounterStore {
  /** Counts one hit in a fixed window; RateLimited (with seconds to wait) when the window is full. */
  hitRateLimit(window: RateWindow): Promise<void>;
  /** Seconds until the window has room again when it is full, else null. Counts nothing. */
  rateLimitRetryAfter(window: RateWindow): Promise<number | null>;

  /** Counts a code's first redemption (`delta` -1 takes back one that lost a race). */
  countRedemption(args: { eventId: string; code: string; delta: number }): Promise<void>;
  /** Counts a revocation (+1) or an unrevocation (-1) of `code`. */
  countRevocation(args: { eventId: string; code: string; delta: number }): Promise<void>;
  /** Adds `delta` to the event's presence in the time bucket of `at` (`seed` spreads writes over shards). */
  countPresence(args: { eventId: string; seed: string; at: string; delta: number }): Promise<void>;
  eventCounters(args: { eventId: string; presenceSince: string }): Promise<EventCounters>;
}

/** Sharded counters of an event: redemptions and revocations of its codes, and presence for the viewer estimate. */
export interface EventCounters {
  redeemed: number;
  revoked: number;
  /** Sum of `countPresence` deltas since `presenceSince`. */
  presence: number;
}

/** A code's mark on the event's revoked count: what a count of it wrote (`counted`: as revoked) and the count's version it made. */
export interface RevocationMark {
  counted: boolean;
  version: number;
}

/** A fixed window of a rate limit: `key` names the limit and the caller. */
export interface RateWindow {
  key: string;
  limit: number;
  windowSeconds: number;
  now: Date;
}

/**
 * The counters port: rate-limit windows, and an event's counters. `countRedemption` and
 * `countPresence` are best effort: they never reject, and the adapter reports a write it lost (a
 * lost one only skews the admin's estimate, and must not fail the viewer's request whose real work
 * is done). The revoked count is exact: code-revocation.ts keeps it with the revocation* methods.
 */
export interface CounterStore {
  /** Counts one hit in a fixed window; RateLimited (with seconds to wait) when the window is full. */
  hitRateLimit(window: RateWindow): Promise<void>;
  /** Seconds until the window has room again when it is full, else null. Counts nothing. */
  rateLimitRetryAfter(window: RateWindow): Promise<number | null>;

  /** Counts a code's first redemption (`delta` -1 takes back one that lost a race). */
  countRedemption(args: { eventId: string; code: string; delta: number }): Promise<void>;
  /**
   * The event's revoked count as `code` is concerned: the version of the part of the count that holds the
   * code, and the code's mark on it (null: none; then the code's item says what the count holds of it).
   */
  revocationMark(args: { eventId: string; code: string }): Promise<{ version: number; mark: RevocationMark | null }>;
  /**
   * Counts `code` as `counted` (revoked: +1; not: -1) and marks it so, in one conditional write, if its
   * part of the count is still at `version`: false when another count came first (read again). Exact, never best effort.
   */
  countRevocation(args: { eventId: string; code: string; counted: boolean; version: number }): Promise<boolean>;
  /** Drops the code's mark if it is still the one made at `version` (the code's item has acknowledged it). */
  forgetRevocationMark(args: { eventId: string; code: string; version: number }): Promise<void>;
  /** Adds `delta` to the event's presence in the time bucket of `at` (`seed` spreads writes over shards). */
  countPresence(args: { eventId: string; seed: string; at: string; delta: number }): Promise<void>;
  eventCounters(args: { eventId: string; presenceSince: string }): Promise<EventCounters>;
}

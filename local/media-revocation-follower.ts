import { z } from 'zod';
import type { RevocationFeed } from '../functions/domain/revocation-feed';

/** The first poll asks for everything: each subject's latest state, i.e. the full picture. */
const BEGINNING = '1970-01-01T00:00:00.000Z';
const REQUEST_TIMEOUT_MS = 5_000;

// The spec's fields are required; the contract's extra lists default to empty so an older API still works.
const feedSchema = z.object({
  revocations: z.array(z.object({ code: z.string(), revokedAt: z.string(), until: z.string().optional() })),
  eventDeactivations: z.array(
    z.object({ eventId: z.string(), deactivatedAt: z.string(), tokenCodes: z.array(z.string()), until: z.string().optional() }),
  ),
  unrevocations: z.array(z.object({ code: z.string(), unrevokedAt: z.string() })).default([]),
  eventReactivations: z.array(z.object({ eventId: z.string(), reactivatedAt: z.string() })).default([]),
  endedSessions: z
    .array(
      z.object({ sessionId: z.string(), code: z.string(), endedAt: z.string(), longLivedUntil: z.string().optional(), until: z.string().optional() }),
    )
    .default([]),
  serverTime: z.string().min(1),
});

export interface RevocationFollowerOptions {
  apiUrl: string;
  internalApiKey: string;
  intervalMs: number;
  /** How long `firstSync` waits for a first successful poll: a cold API can take seconds to answer. */
  startupWaitMs: number;
  onFeed(feed: RevocationFeed): void;
  log(line: string): void;
}

export interface RevocationFollower {
  /** Resolves true at the first successful poll, false if none succeeded within `startupWaitMs`. */
  readonly firstSync: Promise<boolean>;
  /** `Date.now()` of the last successful poll, null before the first. */
  lastSyncAt(): number | null;
  stop(): void;
}

/**
 * Polls `GET /api/revocations?since=` and hands each page over; the page's
 * `serverTime` is the next `since`. Polls never overlap (the next is scheduled
 * when one ends). While the API is down nothing is applied, so the last known
 * state stays in force and `lastSyncAt` ages.
 */
export function followRevocations(options: RevocationFollowerOptions): RevocationFollower {
  const stopping = new AbortController();
  let since = BEGINNING;
  let lastSyncAt: number | null = null;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;
  let settleFirstSync: (synced: boolean) => void = () => {};
  const firstSync = new Promise<boolean>((resolve) => (settleFirstSync = resolve));
  const startupTimer = setTimeout(() => settleFirstSync(false), options.startupWaitMs);

  async function poll(): Promise<void> {
    try {
      const url = `${options.apiUrl}/api/revocations?since=${encodeURIComponent(since)}`;
      const response = await fetch(url, {
        headers: { 'X-Internal-Api-Key': options.internalApiKey },
        signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
      });
      if (!response.ok) throw new Error(`answered ${response.status}`);
      const feed = feedSchema.parse(await response.json());
      options.onFeed(feed);
      since = feed.serverTime;
      lastSyncAt = Date.now();
      settleFirstSync(true);
      clearTimeout(startupTimer);
      if (failing) options.log('revocation feed reachable again');
      failing = false;
    } catch (error) {
      if (stopping.signal.aborted) return;
      // Logged once per outage, not once per poll.
      if (!failing) options.log(`revocation feed unreachable, keeping the last known state: ${(error as Error).message}`);
      failing = true;
    }
  }

  function scheduleNext(): void {
    if (stopping.signal.aborted) return;
    timer = setTimeout(() => void poll().then(scheduleNext), options.intervalMs);
  }

  void poll().then(scheduleNext);
  return {
    firstSync,
    lastSyncAt: () => lastSyncAt,
    stop() {
      stopping.abort();
      clearTimeout(timer);
      clearTimeout(startupTimer);
      settleFirstSync(false);
    },
  };
}

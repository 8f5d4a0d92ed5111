import { eventDenyUntil, sessionDenyUntil } from './edge-deny';
import { InvalidInput } from '../errors';
import type { RevocationFeed } from './revocation-feed';
import type { CodeStore } from '../codes';

/**
 * `serverTime` lags the clock by this much, so writes stamped a little
 * earlier by another instance (clock skew) or made visible late by the
 * index are still returned by the next poll. Entries are idempotent, so the
 * overlap only repeats them.
 */
export const FEED_OVERLAP_MS = 5000;

function parseSince(since: string | undefined): string {
  if (!since) throw new InvalidInput(null, 'since parameter required');
  const at = Date.parse(since);
  if (Number.isNaN(at)) throw new InvalidInput(null, 'since must be an ISO 8601 timestamp');
  return new Date(at).toISOString();
}

export async function buildRevocationFeed(deps: { stores: { codes: CodeStore }; now(): Date }, sinceParam: string | undefined): Promise<RevocationFeed> {
  const since = parseSince(sinceParam);
  const serverTime = new Date(deps.now().getTime() - FEED_OVERLAP_MS).toISOString();
  const { codes, events } = await deps.stores.codes.accessChangesSince(since);
  const feed: RevocationFeed = {
    revocations: [],
    eventDeactivations: [],
    unrevocations: [],
    eventReactivations: [],
    endedSessions: [],
    serverTime,
  };
  for (const code of codes) {
    if (code.revokedChangedAt && code.revokedChangedAt >= since) {
      if (code.isRevoked) {
        const revokedAt = code.revokedAt ?? code.revokedChangedAt;
        feed.revocations.push({ code: code.code, revokedAt, until: code.denyUntil ?? revokedAt });
      }
      else feed.unrevocations.push({ code: code.code, unrevokedAt: code.revokedChangedAt });
    }
    for (const ended of code.endedSessions) {
      if (ended.endedAt >= since) feed.endedSessions.push({ ...ended, code: code.code, until: sessionDenyUntil(ended) });
    }
  }
  const deactivated = events.filter((event) => !event.isActive);
  const tokenCodes = await Promise.all(deactivated.map((event) => deps.stores.codes.listCodes(event.id)));
  deactivated.forEach((event, i) =>
    feed.eventDeactivations.push({
      eventId: event.id,
      deactivatedAt: event.activeChangedAt,
      tokenCodes: tokenCodes[i]!.map((code) => code.code),
      until: eventDenyUntil(event),
    }),
  );
  for (const event of events) {
    if (event.isActive) feed.eventReactivations.push({ eventId: event.id, reactivatedAt: event.activeChangedAt });
  }
  return feed;
}

/** When the player does things. Pure: all times in milliseconds, except where a name says seconds. */

/** Refresh at this fraction of the playback token's lifetime. */
export const REFRESH_AT = 0.8;
export const HEARTBEAT_INTERVAL_MS = 30_000;

/** Delay before refreshing a token that lives `expiresInSeconds` (80 % of it; at least 1 s). */
export function refreshDelayMs(expiresInSeconds: number, fraction = REFRESH_AT): number {
  return Math.max(1_000, Math.round(expiresInSeconds * 1000 * fraction));
}

/**
 * Delay before retrying a failed refresh: 5, 10, 20, 40, 60, 60 … seconds
 * (60 s after a 429), but always early enough to try again before the token
 * expires at `expiresAtMs`. Null when there is no time left.
 */
export function refreshRetryDelayMs(attempt: number, status: number, nowMs: number, expiresAtMs: number): number | null {
  const left = expiresAtMs - nowMs;
  if (left <= 1_000) return null;
  const wanted = status === 429 ? 60_000 : Math.min(60_000, 5_000 * 2 ** Math.max(0, attempt - 1));
  return Math.min(wanted, Math.max(500, left - 2_000));
}

/** How often to poll event status while waiting: rarely when the start is far, every 5 s near and after it. */
export function statusPollDelayMs(msUntilStart: number): number {
  if (msUntilStart > 60 * 60_000) return 60_000;
  if (msUntilStart > 5 * 60_000) return 30_000;
  if (msUntilStart > 60_000) return 10_000;
  return 5_000;
}

/** The event id in a `streamPath` of the form `/streams/<eventId>/`. */
export function eventIdFromStreamPath(streamPath: string): string | null {
  const match = /^\/streams\/([^/]+)\/?$/.exec(streamPath);
  return match?.[1] ? decodeURIComponent(match[1]) : null;
}

/** The HLS entry playlist: `playbackBaseUrl + streamPath + 'index.m3u8'`, tolerant of slashes. */
export function manifestUrl(playbackBaseUrl: string, streamPath: string): string {
  const base = playbackBaseUrl.replace(/\/+$/, '');
  const path = `/${streamPath.replace(/^\/+/, '').replace(/\/*$/, '/')}`;
  return `${base}${path}index.m3u8`;
}

/** Segments the player keeps behind the live edge: two (≈ 2.7 s glass-to-glass with 1 s segments, docs/performance.md, "Latency"). */
const LIVE_SYNC_SEGMENTS = 2;
/** The newest segments of the playlist that say how long a segment is now. */
const RECENT_SEGMENTS = 3;

/**
 * Seconds behind the live edge the player holds: two segments, as long as
 * the longest of the playlist's newest few. It follows the segments actually
 * in the window (a long first segment of a publish, or the segments before a
 * change of encoder, stop counting as soon as three newer ones are there),
 * not the target duration. Undefined for an empty playlist.
 */
export function liveSyncSeconds(segmentDurations: readonly number[]): number | undefined {
  const recent = segmentDurations.slice(-RECENT_SEGMENTS);
  return recent.length > 0 ? LIVE_SYNC_SEGMENTS * Math.max(...recent) : undefined;
}

import type { MediaCache } from '../domain/streams';

/** The local media server's `DELETE /admin/cache/:eventId`, reachable only from this machine. */
export function mediaServerCache(baseUrl: string): MediaCache {
  return {
    async clear(eventId) {
      const response = await fetch(`${baseUrl.replace(/\/$/, '')}/admin/cache/${encodeURIComponent(eventId)}`, {
        method: 'DELETE',
        signal: AbortSignal.timeout(5000),
      });
      if (!response.ok) throw new Error(`media cache clear answered ${response.status}`);
    },
  };
}

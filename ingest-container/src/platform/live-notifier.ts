import type { Logger } from '../log';
import { describeError } from '../log';

export interface PlatformConfig {
  /** Base URL of the access API, e.g. `https://example.com` (the path `/api/internal/streams/…` is appended). */
  apiUrl: string;
  /** Sent as `X-Internal-Api-Key`. */
  apiKey: string;
  timeoutMs?: number;
}

const ATTEMPTS = 3;

/**
 * Tells the platform that a stream went live or ended
 * (`POST /api/internal/streams/:eventId/live`). Calls for one stream are
 * chained so `false` never overtakes `true`; each is retried a few times
 * because a lost `false` would leave the event shown live.
 */
export function createLiveNotifier(config: PlatformConfig | undefined, log: Logger) {
  const chains = new Map<string, Promise<void>>();

  async function post(eventId: string, live: boolean): Promise<void> {
    const url = new URL(`api/internal/streams/${encodeURIComponent(eventId)}/live`, withSlash(config!.apiUrl));
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-internal-api-key': config!.apiKey },
          body: JSON.stringify({ live }),
          signal: AbortSignal.timeout(config!.timeoutMs ?? 5_000),
        });
        await response.body?.cancel().catch(() => undefined);
        if (response.ok) return log.info('platform notified', { event_id: eventId, live });
        // 4xx will not get better by asking again (unknown event, bad key).
        if (response.status < 500) return log.warn('platform refused live status', { event_id: eventId, live, status: response.status });
        log.warn('platform live status failed', { event_id: eventId, live, status: response.status, attempt });
      } catch (error) {
        log.warn('platform live status failed', { event_id: eventId, live, error: describeError(error), attempt });
      }
      if (attempt < ATTEMPTS) await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
    }
  }

  /** Resolves when the notice is delivered or given up; never rejects. */
  function notify(eventId: string, live: boolean): Promise<void> {
    if (!config) return Promise.resolve();
    const next = (chains.get(eventId) ?? Promise.resolve()).then(() => post(eventId, live));
    chains.set(eventId, next);
    void next.then(() => {
      if (chains.get(eventId) === next) chains.delete(eventId);
    });
    return next;
  }

  return { notify };
}

export type LiveNotifier = ReturnType<typeof createLiveNotifier>;

const withSlash = (url: string) => (url.endsWith('/') ? url : `${url}/`);

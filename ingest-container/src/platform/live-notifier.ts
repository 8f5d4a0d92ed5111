import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../log';
import { describeError } from '../log';
import type { EncoderRole } from '../failover/on-air-choice';

export interface PlatformConfig {
  /** Base URL of the access API, e.g. `https://example.com` (the path `/api/internal/streams/…` is appended). */
  apiUrl: string;
  /** Sent as `X-Internal-Api-Key`. */
  apiKey: string;
  timeoutMs?: number;
}

/**
 * `ok`: ours now; `standby`: another ingest process has the show on air with the other encoder, and ours
 * waits to take over; `held`: another ingest process has this encoder on air; `unavailable`: no answer.
 */
export type LeaseAnswer = 'ok' | 'standby' | 'held' | 'unavailable';

/** Another process standing by with the other encoder, as the holder's last acquire said. */
export interface RemoteStandby {
  holder: string;
  role: EncoderRole;
}

const RELEASE_ATTEMPTS = 6;

/**
 * The event's publish lease through the access API
 * (`POST /api/internal/streams/:eventId/lease`, functions/domain/streams/stream-lease.ts):
 * one ingest process on air per event, and the event is `live` while the
 * lease is fresh. Taken when a publish is admitted, renewed while the show is
 * on (`renewEveryMs`, well inside the API's 15 s lease), released at its end.
 * The release is retried in the background and never blocks the stream; a
 * lost release only makes the status wait for the lease to run out.
 */
export function createLeaseClient(config: PlatformConfig | undefined, log: Logger) {
  /** This process, as the API sees it; a restarted process is a new holder. */
  const holder = `${hostname().replace(/[^A-Za-z0-9_.:-]/g, '-').slice(0, 60)}:${process.pid}:${randomBytes(6).toString('hex')}`;
  const releases = new Set<Promise<void>>();

  /** The fresh standby each holder's acquire reported, by event. */
  const standbys = new Map<string, RemoteStandby | null>();

  async function call(eventId: string, action: 'acquire' | 'release' | 'handover', role?: EncoderRole, standby?: EncoderRole): Promise<LeaseAnswer> {
    try {
      const response = await postStreamCall(config!, eventId, 'lease', { holder, action, ...(role ? { role } : {}), ...(standby ? { standby } : {}) });
      if (response.ok) {
        const body = (await response.json().catch(() => ({}))) as { onAir?: boolean; standby?: RemoteStandby | null };
        if (action !== 'acquire') return 'ok';
        if (body.onAir === false) return 'standby';
        standbys.set(eventId, body.standby ?? null);
        return 'ok';
      }
      await response.body?.cancel().catch(() => undefined);
      if (response.status === 409) return 'held';
      log.warn('platform lease refused', { event_id: eventId, action, status: response.status });
      // An unknown event or a bad key will not get better: tell the caller no, not "try later".
      return response.status < 500 ? 'held' : 'unavailable';
    } catch (error) {
      log.warn('platform lease call failed', { event_id: eventId, action, error: describeError(error) });
      return 'unavailable';
    }
  }

  return {
    holder,
    enabled: config !== undefined,
    /**
     * Takes or renews the lease for the encoder `role` on air (or stands by with it); `standby`: the holder has
     * the other encoder connected too. Without a platform every publish is its own.
     */
    async acquire(eventId: string, role?: EncoderRole, standby?: EncoderRole): Promise<LeaseAnswer> {
      if (!config) return 'ok';
      return call(eventId, 'acquire', role, standby);
    },
    /** Another process standing by with the other encoder, as of this process's last acquire (null: none). */
    standbyOf: (eventId: string): RemoteStandby | null => standbys.get(eventId) ?? null,
    /** Hands the lease to the standby process (after our last segment is stored); true when it took it. */
    async handover(eventId: string): Promise<boolean> {
      if (!config) return false;
      standbys.delete(eventId);
      return (await call(eventId, 'handover')) === 'ok';
    },
    /** Ends the show at the platform; retried with backoff in the background, never rejects. */
    release(eventId: string): Promise<void> {
      if (!config) return Promise.resolve();
      const done = (async () => {
        for (let attempt = 1; attempt <= RELEASE_ATTEMPTS; attempt++) {
          if ((await call(eventId, 'release')) !== 'unavailable') return log.info('platform told the show ended', { event_id: eventId });
          if (attempt < RELEASE_ATTEMPTS) await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** (attempt - 1)));
        }
        log.error('platform not told the show ended; its lease runs out instead', { event_id: eventId });
      })().finally(() => releases.delete(done));
      releases.add(done);
      return done;
    },
    /** Waits for releases under way (shutdown). */
    async settle(): Promise<void> {
      while (releases.size > 0) await Promise.all([...releases]);
    },
  };
}

export type LeaseClient = ReturnType<typeof createLeaseClient>;

/** POSTs `body` to the platform's `/api/internal/streams/:eventId/<what>` with the internal key (lease, reports). */
export function postStreamCall(config: PlatformConfig, eventId: string, what: string, body: object): Promise<Response> {
  const base = config.apiUrl.endsWith('/') ? config.apiUrl : `${config.apiUrl}/`;
  return fetch(new URL(`api/internal/streams/${encodeURIComponent(eventId)}/${what}`, base), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-internal-api-key': config.apiKey },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(config.timeoutMs ?? 5_000),
  });
}

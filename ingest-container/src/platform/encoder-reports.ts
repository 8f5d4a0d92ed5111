import { describeError, type Logger } from '../log';
import type { EncoderRole } from '../failover/on-air-choice';
import type { EncoderSnapshot } from '../publications';
import { postStreamCall, type PlatformConfig } from './live-notifier';

/** Reports are sent again this often while an encoder is here: the platform counts a report older than 3 × this as stale. */
export const ENCODER_REPORT_MS = 2_000;

interface Sent {
  encoders: EncoderSnapshot[];
  timer: NodeJS.Timeout;
}

/**
 * Tells the platform about each encoder of a show (`POST /api/internal/streams/:eventId/encoders`):
 * at once when something changes, and every `ENCODER_REPORT_MS` while any is here, for the event
 * page's encoder panel. The answer carries an operator's request for an encoder on air
 * (`requestedOnAir`), handed to `requested`: that is how a switch by hand reaches the ingest within
 * a couple of seconds, whichever process has the show. Diagnostics otherwise: a failed report is logged.
 */
export function createEncoderReports(config: PlatformConfig | undefined, log: Logger, requested: (eventId: string, role: EncoderRole) => void) {
  const shows = new Map<string, Sent>();

  async function post(eventId: string, encoders: EncoderSnapshot[]): Promise<void> {
    if (!config) return;
    const body = {
      encoders: encoders.map(({ role, connected, onAir, since, session }) => ({
        role,
        // An SRT caller reaches us as a loopback RTMP publish whose access request says so.
        protocol: session.accessRequest?.protocol ?? 'rtmp',
        connected,
        onAir,
        since: new Date(since).toISOString(),
        video: session.videoWidth ? { width: session.videoWidth, height: session.videoHeight || null, frameRate: session.videoFramerate || null } : null,
      })),
    };
    try {
      const response = await postStreamCall(config, eventId, 'encoders', body);
      const answer = (await response.json().catch(() => ({}))) as { requestedOnAir?: EncoderRole | null };
      if (!response.ok) return log.warn('platform refused encoder report', { event_id: eventId, status: response.status });
      if (answer.requestedOnAir) requested(eventId, answer.requestedOnAir);
    } catch (error) {
      log.warn('encoder report failed', { event_id: eventId, error: describeError(error) });
    }
  }

  return {
    /** The show's encoders now (an empty list: the show ended here; said once more, then no more reports). */
    changed(eventId: string, encoders: EncoderSnapshot[]): void {
      const sent = shows.get(eventId);
      if (sent) clearInterval(sent.timer);
      shows.delete(eventId);
      void post(eventId, encoders);
      if (encoders.length === 0) return;
      const timer = setInterval(() => void post(eventId, shows.get(eventId)?.encoders ?? encoders), ENCODER_REPORT_MS);
      timer.unref();
      shows.set(eventId, { encoders, timer });
    },
    stop(): void {
      for (const sent of shows.values()) clearInterval(sent.timer);
      shows.clear();
    },
  };
}

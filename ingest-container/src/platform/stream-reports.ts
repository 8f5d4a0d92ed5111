import { describeError, type Logger } from '../log';
import { postStreamCall, type PlatformConfig } from './live-notifier';

export interface VideoReport {
  keyframeIntervalSeconds: number;
  frameRate: number;
  segmentSeconds: number;
  /** The packaging re-encodes the video (keyframes too far apart to copy, or an adaptive ladder). */
  reencoding: boolean;
}

/**
 * Tells the platform what it cannot see itself: a publisher's measured video
 * (`POST /api/internal/streams/:eventId/video`) and publishes refused here
 * rather than by the callback (`…/refusals`). Diagnostics only: one attempt
 * each, a failure is logged and the stream is unaffected.
 */
export function createStreamReporter(config: PlatformConfig | undefined, log: Logger) {
  async function post(eventId: string, what: 'video' | 'refusals', body: object): Promise<void> {
    if (!config) return;
    try {
      const response = await postStreamCall(config, eventId, what, body);
      await response.body?.cancel().catch(() => undefined);
      if (!response.ok) log.warn('platform refused stream report', { event_id: eventId, report: what, status: response.status });
    } catch (error) {
      log.warn('stream report failed', { event_id: eventId, report: what, error: describeError(error) });
    }
  }

  return {
    video: (eventId: string, report: VideoReport) => post(eventId, 'video', report),
    alreadyPublishing: (eventId: string, remoteAddr: string) => post(eventId, 'refusals', { reason: 'already-publishing', remoteAddr }),
  };
}

export type StreamReporter = ReturnType<typeof createStreamReporter>;

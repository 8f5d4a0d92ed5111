/**
 * The admin's preview: a short-lived playback token for the event's stream
 * that spends no code. It is marked `prv` in its claims, has no playback
 * session (so it is never counted as a viewer) and is refused by refresh,
 * heartbeat, release and the RTMP play check: it opens the HLS and nothing else.
 */
import { eventStatus } from '../event-status';
import { requireEvent } from '../events';
import { Conflict } from '../errors';
import { PREVIEW_CODE, streamPathOf } from '../playback-claims';
import { signPlaybackToken } from './playback-token';
import { randomId } from '../random';
import type { EventStore } from '../events';
import type { AppConfig } from '../config';

export async function issuePreview(deps: { stores: { events: EventStore }; config: AppConfig; now(): Date }, eventId: string, playbackBaseUrl: string) {
  const event = await requireEvent(deps, eventId);
  // The edge refuses every token of a deactivated event, and the ingest refuses its publisher.
  if (!event.isActive) throw new Conflict('preview-of-inactive-event');
  const now = deps.now();
  const { token, expiresIn } = await signPlaybackToken(
    { code: PREVIEW_CODE, eventId: event.id, sessionId: `preview${randomId(20)}`, preview: true },
    deps.config.signingKeys,
    now,
  );
  return {
    playbackToken: token,
    playbackBaseUrl,
    streamPath: streamPathOf(event.id),
    tokenExpiresIn: expiresIn,
    status: eventStatus(event, now),
  };
}

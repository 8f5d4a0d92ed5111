/**
 * Why playback stops. Refresh, heartbeat and the media server each answer a
 * lost right to watch with their own status; the viewer reads one sentence.
 */
import type { RefusalReason } from './types';

export interface AccessLoss {
  /** Overlay heading. */
  title: string;
  /** Overlay text. */
  message: string;
  /** The code no longer works (revoked, event unavailable, expired); otherwise only this viewing ended. */
  accessOver: boolean;
  /** The code itself is over for good (revoked, expired): a copy saved on the device is forgotten. */
  codeEnded?: boolean;
}

const ENDED_BY_ADMIN: AccessLoss = {
  title: 'Session ended',
  message: 'The organiser ended this viewing session. Enter your access code again to keep watching.',
  accessOver: false,
};
const TAKEN_OVER: AccessLoss = {
  title: 'Watching on another device',
  message: 'Your access code was used on another device, so playback stopped here.',
  accessOver: false,
};

/**
 * The loss a refresh/heartbeat/media answer means, or null when it is
 * transient (network failure, 5xx, rate limit) and the player should retry.
 * The API's `reason` says why (docs/api.md); the media server's 403
 * has none.
 */
export function accessLossFor(status: number, reason?: RefusalReason | string): AccessLoss | null {
  if (reason === 'ended-by-admin') return ENDED_BY_ADMIN;
  if (reason === 'taken-over') return TAKEN_OVER;
  switch (status) {
    case 401:
      return {
        title: 'Playback stopped',
        message: 'Your viewing session is no longer valid. Enter your access code again to keep watching.',
        accessOver: false,
      };
    case 403:
      if (reason === 'revoked') {
        return { title: 'Access revoked', message: 'Your access code has been revoked, so playback has stopped.', accessOver: true, codeEnded: true };
      }
      // Not the code's fault: it may play elsewhere, so it is kept, and nothing retries from here.
      if (reason === 'geo') {
        return { title: 'Not available in your country', message: 'This event is not available in your country, so playback has stopped.', accessOver: true };
      }
      if (reason === 'event-inactive') {
        return { title: 'Event unavailable', message: 'The organiser has made this event unavailable, so playback has stopped.', accessOver: true };
      }
      return { title: 'Access denied', message: 'You no longer have access to this stream, so playback has stopped.', accessOver: true };
    case 404:
      return {
        title: 'Session ended',
        message: 'Your viewing session has ended. Enter your access code again to keep watching.',
        accessOver: false,
      };
    case 410:
      return { title: 'Access expired', message: 'Your access to this event has expired.', accessOver: true, codeEnded: true };
    default:
      return null;
  }
}

/** When the playback token ran out while refreshes kept failing transiently. */
export function lostRenewal(lastStatus: number): AccessLoss {
  return lastStatus === 429
    ? { title: 'Playback stopped', message: 'Too many refresh requests. Wait a few minutes and enter your code again.', accessOver: false }
    : {
        title: 'Connection lost',
        message: "We couldn't renew your access because the connection dropped. Enter your code again to keep watching.",
        accessOver: false,
      };
}

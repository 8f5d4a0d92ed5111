/**
 * Why playback stops. Refresh, heartbeat and the media server each answer a
 * lost right to watch with their own status; the viewer reads one sentence.
 */

export interface AccessLoss {
  /** Overlay heading. */
  title: string;
  /** Overlay text. */
  message: string;
}

/**
 * The loss a refresh/heartbeat/media answer means, or null when it is
 * transient (network failure, 5xx, rate limit) and the player should retry.
 */
export function accessLossFor(status: number, error = '', body?: unknown): AccessLoss | null {
  switch (status) {
    case 401:
      // Refresh says so when an organiser ended the session from the console.
      if (typeof body === 'object' && body !== null && (body as { endedBy?: unknown }).endedBy === 'admin') {
        return {
          title: 'Session ended',
          message: 'The organiser ended this viewing session. Enter your access code again to keep watching.',
        };
      }
      return {
        title: 'Playback stopped',
        message: 'Your viewing session is no longer valid. Enter your access code again to keep watching.',
      };
    case 403:
      if (/revoked/i.test(error)) {
        return { title: 'Access revoked', message: 'Your access code has been revoked, so playback has stopped.' };
      }
      return { title: 'Access denied', message: 'You no longer have access to this stream, so playback has stopped.' };
    case 404:
      return {
        title: 'Session ended',
        message: 'Your viewing session has ended. Enter your access code again to keep watching.',
      };
    case 410:
      return { title: 'Access expired', message: 'Your access to this event has expired.' };
    default:
      return null;
  }
}

/** When the playback token ran out while refreshes kept failing transiently. */
export function lostRenewal(lastStatus: number): AccessLoss {
  return lastStatus === 429
    ? { title: 'Playback stopped', message: 'Too many refresh requests. Wait a few minutes and enter your code again.' }
    : {
        title: 'Connection lost',
        message: "We couldn't renew your access because the connection dropped. Enter your code again to keep watching.",
      };
}

import type { AccessGrant, AccessRequest } from './auth/access-request';
import type { Authenticator } from './auth/authenticator';
import { AuthServiceUnavailable, ErrUnauthorized, StreamBusy } from './auth/errors';
import type { Logger } from './log';
import type { LeaseClient } from './platform/live-notifier';
import type { FailureBrake } from './rtmp/failure-brake';

/**
 * The one admission step of a publish or play command (MediaMTX's access
 * request handed to its path manager): the auth check, the brute-force brake
 * on a "no", and for a publish the event's lease and the reopening of its
 * show. The connection glue only turns what this throws into a reject.
 */
export function createAdmission(deps: {
  authenticator: Pick<Authenticator, 'check'>;
  brake: FailureBrake;
  notifier: Pick<LeaseClient, 'acquire'>;
  /** This process holds the show of this stream path already (on air or inside its reconnect window). */
  holdsShow: (streamPath: string) => boolean;
  /** Makes a stream's stored show live again before its first publish here (HLS on). */
  reopenShow?: (streamName: string) => Promise<void>;
  /** The server is shutting down. */
  closing: () => boolean;
  log: Logger;
}) {
  const { authenticator, brake, notifier, log } = deps;

  /** A "no" from an address that keeps failing is answered late; an unanswered check is not braked. */
  async function checkCredentials(request: AccessRequest): Promise<AccessGrant> {
    try {
      return await authenticator.check(request);
    } catch (error) {
      if (error instanceof ErrUnauthorized) {
        const delayMs = brake.failed(request.remoteAddr);
        if (delayMs > 0) {
          log.info('auth failure answered late', { remote_addr: request.remoteAddr, delay_ms: delayMs });
          await new Promise((resolve) => setTimeout(resolve, delayMs));
        }
      }
      throw error;
    }
  }

  /** Resolves to admit; throws ErrUnauthorized, StreamBusy or AuthServiceUnavailable to refuse. */
  return async function admit(request: AccessRequest): Promise<AccessGrant> {
    const grant = await checkCredentials(request);
    // A check that ends during shutdown must not start a stream nobody will end.
    if (deps.closing()) throw new AuthServiceUnavailable('ingest server shutting down');
    // One process on air per event: a publish needs the event's lease, unless this process holds the show
    // already (a resume within the reconnect window, or the other encoder of its show).
    if (request.action !== 'publish' || deps.holdsShow(`/${request.app}/${request.streamName}`)) return grant;
    const lease = await notifier.acquire(request.streamName, grant.role ?? 'primary');
    if (lease === 'held') throw new StreamBusy();
    if (lease === 'unavailable') throw new AuthServiceUnavailable('the platform did not answer the stream lease');
    // On air elsewhere with the other encoder: this one stands by (no playlists touched).
    if (lease === 'standby') return { ...grant, standby: true };
    await deps.reopenShow?.(request.streamName);
    return grant;
  };
}

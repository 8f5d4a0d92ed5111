import { streamKeyOf, type AccessRequest } from '../auth/access-request';
import { ErrUnauthorized } from '../auth/errors';
import { describeError, type Logger } from '../log';
import type { AuthFailedPayload } from './webhooks';

/** The connection a failure is reported for. */
export interface FailedConnection {
  readonly id: string;
}

/**
 * Every refused check, at the command or at a recheck, is logged and sent to
 * the `auth_failed` webhooks. A "no" (ErrUnauthorized) is routine and logged
 * at info; a check that got no answer is a fault of ours or the platform's, at warn.
 */
export function createAuthFailureReport(deps: { log: Logger; send: (payload: AuthFailedPayload) => void }) {
  const { log, send } = deps;
  return function authFailed(connection: FailedConnection, request: AccessRequest, error: unknown, recheck: boolean): void {
    const fields = { conn_id: connection.id, action: request.action, stream_key: streamKeyOf(request), remote_addr: request.remoteAddr };
    if (error instanceof ErrUnauthorized) log.info('auth failed', { ...fields, error: error.message, recheck });
    else log.warn('auth check could not be made, denied', { ...fields, error: describeError(error), recheck });
    send({
      event: 'auth_failed',
      time: new Date().toISOString(),
      conn_id: connection.id,
      action: request.action,
      app: request.app,
      stream_name: request.streamName,
      stream_key: streamKeyOf(request),
      error: error instanceof Error ? error.message : String(error),
      recheck,
      remote_addr: request.remoteAddr,
    });
  };
}

export type AuthFailureReport = ReturnType<typeof createAuthFailureReport>;

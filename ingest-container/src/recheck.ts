import { streamKeyOf, type AccessRequest, type Action } from './auth/access-request';
import type { Authenticator } from './auth/authenticator';
import { ErrUnauthorized } from './auth/errors';
import { describeError, type Logger } from './log';

/** An admitted connection, as a recheck sees it. */
export interface AdmittedConnection {
  readonly id: string;
  readonly streamPath: string;
  readonly accessRequest: AccessRequest | undefined;
  readonly socket: { readonly destroyed: boolean };
  deny(action: Action, description: string): void;
}

/**
 * One recheck round (callback mode): every publisher on air and every player
 * is asked about again, and those now denied are cut. A publisher's cut ends
 * its show at once (no reconnect window).
 */
export function createRecheckRound<C extends AdmittedConnection>(deps: {
  authenticator: Pick<Authenticator, 'check'>;
  /** Publishers on air now (not those inside a reconnect window). */
  onAir: () => C[];
  players: () => C[];
  cutOff: (streamPath: string) => void;
  authFailed: (connection: C, request: AccessRequest, error: unknown, recheck: boolean) => void;
  log: Logger;
}) {
  const { authenticator, log } = deps;
  return async function recheckRound(): Promise<void> {
    for (const connection of [...deps.onAir(), ...deps.players()]) {
      const request = connection.accessRequest!;
      try {
        await authenticator.check({ ...request, recheck: true });
      } catch (error) {
        if (!(error instanceof ErrUnauthorized)) {
          // Like nginx-rtmp's on_update in its default mode: no answer is not a no, the stream stays.
          log.warn('recheck could not be made, session kept', { conn_id: connection.id, stream_key: streamKeyOf(request), error: describeError(error) });
          continue;
        }
        // The connection may have gone (or its show ended) while earlier ones were asked.
        if (request.action === 'play') {
          if (connection.socket.destroyed) continue;
          deps.authFailed(connection, request, error, true);
          connection.deny('play', error.message);
        } else if (deps.onAir().includes(connection)) {
          deps.authFailed(connection, request, error, true);
          connection.deny('publish', error.message);
          deps.cutOff(connection.streamPath);
        }
      }
    }
  };
}

/** One recheck round at a time; a slow callback never stacks rounds. Off unless mode callback and an interval. */
export function startRecheck(intervalMs: number, mode: string, log: Logger, round: () => Promise<void>) {
  let current: Promise<void> | undefined;
  if (intervalMs <= 0 || mode !== 'callback') {
    if (intervalMs > 0) log.warn('recheck applies to mode callback only; off', { auth_mode: mode });
    return { stop: () => undefined, idle: async () => undefined };
  }
  const timer = setInterval(() => {
    current ??= round()
      .catch((error) => log.error('recheck round failed', { error: describeError(error) }))
      .finally(() => (current = undefined));
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer), idle: async () => void (await current) };
}

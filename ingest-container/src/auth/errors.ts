/** The spec's sentinel messages; clients see them as the Unauthorized status description. */
export const INVALID_CREDENTIALS = 'authentication failed: invalid credentials';
export const TOKEN_MISSING = 'authentication failed: token missing';

/**
 * An authentication rejection: the backend answered and the answer is no.
 * `instanceof ErrUnauthorized` is how callers tell it from a transport failure.
 */
export class ErrUnauthorized extends Error {
  override readonly name = 'ErrUnauthorized';
  constructor(message: typeof INVALID_CREDENTIALS | typeof TOKEN_MISSING) {
    super(message);
  }
}

export const invalidCredentials = () => new ErrUnauthorized(INVALID_CREDENTIALS);
export const tokenMissing = () => new ErrUnauthorized(TOKEN_MISSING);

/**
 * The callback could not give an answer (timeout, unreachable, 5xx). New
 * sessions are denied all the same (fail closed), but this is not
 * `ErrUnauthorized`: logs say so, and the recheck does not cut a live stream
 * for it.
 */
export class AuthServiceUnavailable extends Error {
  override readonly name = 'AuthServiceUnavailable';
}

/** What the client is shown when the check could not be made; internals stay in the logs. */
export const SERVICE_UNAVAILABLE_DESCRIPTION = 'authentication failed: authorization service unavailable';

/**
 * The event is on air on another ingest process (it holds the publish lease):
 * not an authentication failure. The client gets `NetStream.Publish.BadName`
 * at level `error`, as for a second publisher on this process.
 */
export class StreamBusy extends Error {
  override readonly name = 'StreamBusy';
  constructor() {
    super('stream already publishing on another ingest');
  }
}

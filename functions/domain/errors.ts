/**
 * Domain errors raised by the store at the storage boundary (for example from
 * a failed conditional write), so that callers never see SDK errors.
 */
export class DomainError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The item to create exists already (an access code collided). */
export class AlreadyExists extends DomainError {}
/** The item to change does not exist. */
export class NotFound extends DomainError {}
/** Another device holds a live session on this code, or the code changed under us. */
export class CodeInUse extends DomainError {}
/** The session to keep alive is not the code's live session any more. */
export class SessionGone extends DomainError {}
/** The code or its event no longer grants access. */
export class AccessRevoked extends DomainError {}
/** Another ingest process holds the event's publish lease and keeps renewing it. */
export class LeaseHeld extends DomainError {}
/** A rate-limit window is full. */
export class RateLimited extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('rate limited');
  }
}
/** A paging cursor that the store did not issue (or issued for another listing). */
export class InvalidCursor extends DomainError {}

/**
 * Every error the domain raises on purpose. The domain knows no status codes:
 * `functions/http/error-table.ts` maps each class to its answer (status,
 * `error` text, headers, `reason`), and anything not in that table is a 500.
 */
import type { RATE_LIMITS } from './config';
import type { CodeRecord } from './records';

export class DomainError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export type RecordKind = 'event' | 'code' | 'session' | 'account' | 'job' | 'order' | 'checkout';
/**
 * The record a request names, or a store write changes, does not exist (or is not where the
 * request looks for it). Stores and use cases raise it alike, so it answers the same from anywhere.
 */
export class NotFound extends DomainError {
  constructor(
    readonly kind: RecordKind,
    detail?: string,
  ) {
    super(`${kind} not found${detail ? `: ${detail}` : ''}`);
  }
}

// Raised by the stores at the storage boundary (for example from a failed conditional write), so that callers
// never see SDK errors. The use cases turn some into answers of their own (a heartbeat's lost session into the
// viewer's reason); the error table answers every one that reaches it.

/** The item to create exists already (an access code collided). */
export class AlreadyExists extends DomainError {}
/**
 * Another device holds a live session on this code, or the code changed under us. Also validation's
 * "in use". From a claim that lost, `seen` is the code as that write saw it (null: gone).
 */
export class CodeInUse extends DomainError {
  constructor(
    message: string,
    readonly seen?: CodeRecord | null,
  ) {
    super(message);
  }
}
/** A conditional write on a code's session that did not apply; `seen` is the code as that write saw it (null: gone). */
abstract class LostSessionWrite extends DomainError {
  constructor(
    message: string,
    readonly seen: CodeRecord | null,
  ) {
    super(message);
  }
}
/** The session to keep alive is not the code's live session any more. */
export class SessionGone extends LostSessionWrite {}
/** The code or its event no longer grants access. */
export class AccessRevoked extends LostSessionWrite {}
/** Another ingest process holds the event's publish lease and keeps renewing it. */
export class LeaseHeld extends DomainError {}
/** The item kept changing between the read and the conditional write, attempt after attempt; a later retry may succeed. */
export class Contended extends DomainError {}
/** A rate-limit window is full. */
export class RateLimited extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('rate limited');
  }
}
/** A paging cursor that the store did not issue (or issued for another listing). */
export class InvalidCursor extends DomainError {}
/**
 * The store did not answer (a connection reset or timed out) or refused for load (throttled,
 * overloaded, an internal error): the request may have been applied or not, and a retry later
 * may succeed. `cause` is the SDK's error.
 */
export class StoreUnavailable extends DomainError {}

// Raised by the use cases, each carrying what its answer needs.

/** Input that breaks a schema or a rule; `field` names the offending field (null: the input as a whole). */
export class InvalidInput extends DomainError {
  constructor(
    readonly field: string | null,
    readonly problem: string,
  ) {
    super(field ? `${field}: ${problem}` : problem);
  }
}

/** A background job cannot go on whatever the tries (its event was deleted): it fails with `reason`, no step is retried. */
export class JobStopped extends DomainError {
  constructor(readonly reason: string) {
    super(`job stopped: ${reason}`);
  }
}

/**
 * Some items of a job step's unit could not be done (every other was tried): says how many, and why, in the
 * words of the one who started the job, e.g. "12 codes could not be revoked: <the store's error>".
 */
export class ItemsFailed extends DomainError {
  constructor(what: string, cause: unknown) {
    super(`${what}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

export type ConflictKind =
  | 'username-taken'
  | 'owner-managed-elsewhere'
  | 'own-account'
  | 'owner-password-elsewhere'
  | 'enrolment-not-started'
  | 'preview-of-inactive-event'
  | 'too-many-accounts'
  | 'order-without-tickets'
  | 'order-changed'
  | 'order-sold-by-shop'
  | 'event-cancelled'
  | 'not-on-sale'
  | 'sold-out'
  | 'job-not-failed';
/** An event with more codes than one answer's CSV holds: its export is a job. */
export class ExportTooLarge extends DomainError {}

/** No file storage for exports here (no export bucket configured). */
export class ExportsNotConfigured extends DomainError {}

/** No watermark secret or no media bucket here: nothing to trace a copy against. */
export class WatermarkingNotConfigured extends DomainError {}

/** The request cannot apply to the record's current state. */
export class Conflict extends DomainError {
  constructor(readonly kind: ConflictKind) {
    super(kind);
  }
}

/** An event with paid, unrefunded orders cannot be deleted: its buyers would lose their money and never hear why. */
export class HasPaidOrders extends DomainError {
  constructor(readonly eventId: string) {
    super(`event ${eventId} has paid orders`);
  }
}

/**
 * The payment provider did not open a checkout. `created: false` when it surely made no session (it
 * answered with an error); true when it may have (no answer), and the session's expiry settles it.
 */
export class PaymentsUnavailable extends DomainError {
  constructor(
    readonly created: boolean,
    options?: { cause?: unknown },
  ) {
    super('the payment provider did not open a checkout', options);
  }
}

/**
 * Why a viewer is refused, by the step that refuses. The `reason` field of the
 * answer (docs/api.md): stable values a client may branch on.
 * - `unknown-code`: no such code; `invalid-token`: the JWT is missing, forged or not a viewer's;
 * - `revoked`: the code was revoked (or deleted); `event-inactive`: the event was deactivated;
 * - `expired`: the code's access (or, at refresh, the JWT) ran out;
 * - `session-ended`: released or timed out; `taken-over`: another device claimed the code;
 *   `ended-by-admin`: an organiser ended it from the console.
 * Two answers go without `reason`, their status being their only cause and
 * their body pinned by the spec: validation's 401 (`unknown-code`) and its 409
 * "in use" (`CodeInUse`, which carries `inUse: true`).
 */
export interface RefusalReasons {
  validate: 'unknown-code' | 'revoked' | 'event-inactive' | 'expired' | 'geo';
  refresh: 'invalid-token' | 'revoked' | 'event-inactive' | 'expired' | 'geo' | SessionEndReason;
  heartbeat: 'invalid-token' | 'revoked' | 'event-inactive' | SessionEndReason;
  release: 'invalid-token';
}
export type RefusalStep = keyof RefusalReasons;
export type RefusalReason = RefusalReasons[RefusalStep];
export type SessionEndReason = 'session-ended' | 'taken-over' | 'ended-by-admin';

/** A viewer's request refused at `step` (validation; refresh and the long-lived URL; heartbeat; release). */
export class AccessRefused<S extends RefusalStep = RefusalStep> extends DomainError {
  constructor(
    readonly step: S,
    readonly reason: RefusalReasons[S],
  ) {
    super(`${step}: ${reason}`);
  }
}

/**
 * The RTMP callback's one refusal for every "no": the ingest tells its client
 * only "invalid credentials" anyway, and distinct reasons would let a caller
 * probe which event ids exist.
 */
export class RtmpDenied extends DomainError {
  constructor() {
    super('rtmp access denied');
  }
}

export type RateLimitName = keyof typeof RATE_LIMITS;
/** One of the spec's rate limits is full for this caller. */
export class TooManyRequests extends DomainError {
  constructor(
    readonly limit: RateLimitName,
    readonly retryAfterSeconds: number,
  ) {
    super(`${limit} rate limit`);
  }
}

/** No signed-in admin account behind the request (any more). */
/**
 * Why a request has no valid admin session, for the console to tell the person: none was sent, it ran
 * out, it was signed out, or an owner changed the account (role, password, two-factor) or disabled it.
 */
export type SignedOutReason = 'no-session' | 'session-expired' | 'signed-out' | 'account-changed' | 'account-disabled';

export class NotSignedIn extends DomainError {
  constructor(readonly reason: SignedOutReason = 'no-session') {
    super(`not signed in: ${reason}`);
  }
}

export type SignInFailure = 'wrong-password' | 'wrong-credentials' | 'wrong-code' | 'sign-in-again' | 'locked' | 'address-locked';
/** What a failed sign-in tells the user: the answer's `error` (functions/http/error-table.ts) and the audit entry's `reason`. */
export const SIGN_IN_WORDS: Record<SignInFailure, string> = {
  'wrong-password': 'Invalid password',
  'wrong-credentials': 'Invalid username or password',
  'wrong-code': 'Invalid code',
  'sign-in-again': 'Sign in again',
  locked: 'Account locked after repeated failed sign-ins',
  // The spec's words for the login's limit per address (spec/access-gateway.md, "Errors").
  'address-locked': 'Too many login attempts',
};

/**
 * A sign-in step (or a signed-in account proving itself again) failed. `account` is the account the
 * name belongs to, null when none has it: the audit records that as an unknown account, never the text typed.
 */
export class SignInFailed extends DomainError {
  constructor(
    readonly account: string | null,
    readonly failure: SignInFailure,
  ) {
    super(`sign-in failed: ${failure}`);
  }
}
/** Too many failed factors on the login name (domain/staff/sign-in-limits.ts): it is locked for `retryAfterSeconds`. */
export class AccountLocked extends SignInFailed {
  constructor(
    account: string | null,
    readonly retryAfterSeconds: number,
  ) {
    super(account, 'locked');
  }
}
/** Too many failed factors on the login name from this client address: refused here for `retryAfterSeconds`, the name not locked. */
export class SignInThrottled extends SignInFailed {
  constructor(
    account: string | null,
    readonly retryAfterSeconds: number,
  ) {
    super(account, 'address-locked');
  }
}

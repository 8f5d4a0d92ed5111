import {
  AccessRefused,
  AccessRevoked,
  AccountLocked,
  AlreadyExists,
  CodeInUse,
  Conflict,
  Contended,
  ExportsNotConfigured,
  ExportTooLarge,
  HasPaidOrders,
  InvalidCursor,
  InvalidInput,
  LeaseHeld,
  NotFound,
  NotSignedIn,
  PaymentsUnavailable,
  RateLimited,
  RtmpDenied,
  SessionGone,
  SIGN_IN_WORDS,
  SignInFailed,
  SignInThrottled,
  StoreUnavailable,
  TooManyRequests,
  WatermarkingNotConfigured,
  type ConflictKind,
  type RateLimitName,
  type RecordKind,
  type RefusalReason,
  type RefusalReasons,
  type RefusalStep,
} from '../domain/errors';
import { LIST_LIMITS } from '../domain/config';
import { HttpError } from './http-error';

/** What an error answers: its status, `{ error, ...body }` and headers. */
export interface ErrorAnswer {
  status: number;
  body: { error: string; reason?: string } & Record<string, unknown>;
  headers?: Record<string, string>;
}

const INVALID_PLAYBACK = 'Valid playback token required';
const PLAYBACK_REVOKED = 'Access has been revoked';
const SESSION_NOT_FOUND = 'Session not found';
/** The event's country rule (events/geo.ts) refuses the viewer's country: the same words at validate and refresh. */
const OUTSIDE_GEO: Refusal = { status: 403, error: 'This event is not available in your country' };

const NOT_FOUND: Record<RecordKind, string> = {
  event: 'Event not found',
  code: 'Token not found',
  session: SESSION_NOT_FOUND,
  account: 'Account not found',
  job: 'Job not found',
  order: 'Order not found',
  checkout: 'Checkout not found',
};

const CONFLICTS: Record<ConflictKind, string> = {
  'username-taken': 'That login name is taken',
  'owner-managed-elsewhere': 'The owner account is managed with set-admin-password, not here',
  'own-account': 'You cannot change your own role or disable yourself',
  'owner-password-elsewhere': 'The owner password is set with set-admin-password',
  'enrolment-not-started': 'Start two-factor enrolment first',
  'preview-of-inactive-event': 'Event is deactivated: activate it to preview the stream',
  'too-many-accounts': `There are ${LIST_LIMITS.accounts} staff accounts already: disable one and give it to someone else`,
  'order-without-tickets': 'This order has no tickets to send (it failed)',
  'order-changed': 'The order changed meanwhile: reload and try again',
  'order-sold-by-shop': 'This order was sold by the shop: refund it there; its order.refunded webhook revokes the codes',
  'event-cancelled': 'This event was cancelled already',
  'not-on-sale': 'This event is not on sale',
  // Lower case, as the issue words it: what a buyer's page and a shop's script both read.
  'sold-out': 'sold out',
  'job-not-failed': 'Only a failed job can be retried',
};

interface Refusal {
  status: number;
  error: string;
  /**
   * False where an existing client pins the spec's body exactly and the
   * status alone names the cause (validation's only 401).
   */
  withReason?: false;
}

/**
 * The spec's error rows of the viewer endpoints (spec/access-gateway.md,
 * "Errors"), by step and reason. One status may have several causes (refresh's
 * 403: a revoked code or a deactivated event); `reason` tells them apart.
 */
const REFUSALS: { [S in RefusalStep]: Record<RefusalReasons[S], Refusal> } = {
  validate: {
    'unknown-code': { status: 401, error: 'Invalid access code', withReason: false },
    revoked: { status: 403, error: 'Access code has been revoked' },
    'event-inactive': { status: 403, error: 'This event is not currently available' },
    expired: { status: 410, error: 'Access code has expired' },
    geo: OUTSIDE_GEO,
  },
  refresh: {
    'invalid-token': { status: 401, error: INVALID_PLAYBACK },
    revoked: { status: 403, error: PLAYBACK_REVOKED },
    'event-inactive': { status: 403, error: PLAYBACK_REVOKED },
    expired: { status: 410, error: 'Access has expired' },
    geo: OUTSIDE_GEO,
    'session-ended': { status: 401, error: INVALID_PLAYBACK },
    'taken-over': { status: 401, error: INVALID_PLAYBACK },
    'ended-by-admin': { status: 401, error: INVALID_PLAYBACK },
  },
  heartbeat: {
    'invalid-token': { status: 401, error: INVALID_PLAYBACK },
    revoked: { status: 403, error: PLAYBACK_REVOKED },
    'event-inactive': { status: 403, error: PLAYBACK_REVOKED },
    'session-ended': { status: 404, error: SESSION_NOT_FOUND },
    'taken-over': { status: 404, error: SESSION_NOT_FOUND },
    'ended-by-admin': { status: 404, error: SESSION_NOT_FOUND },
  },
  release: {
    'invalid-token': { status: 401, error: INVALID_PLAYBACK },
  },
};

const TOO_MANY: Record<RateLimitName, string> = {
  validate: 'Too many requests. Please try again later.',
  refresh: 'Too many refresh requests',
  login: SIGN_IN_WORDS['address-locked'],
  generate: 'Too many code generations: wait a few minutes',
  generateJob: 'Too many generation jobs: wait an hour',
  checkout: 'Too many checkouts from this address: wait a few minutes',
  resendClient: 'Too many requests. Please try again later.',
  resendAddress: 'Too many requests. Please try again later.',
};

const STORE_UNAVAILABLE = 'The service is busy: try again in a moment';
/** The SDK retried already (with backoff) before giving up: a client waits a little longer than a contended write's 1 s. */
const STORE_RETRY_SECONDS = 2;

const retryAfter = (seconds: number) => ({ 'retry-after': String(seconds) });

/**
 * The one table from errors to answers; the single error step
 * (`middlewares/error-responses.ts`) renders what it returns. Null: not a
 * refusal, so a 500 whose details are logged, never shown.
 */
export function errorAnswer(error: unknown): ErrorAnswer | null {
  if (error instanceof HttpError) return { status: error.status, body: { error: error.message } };
  if (error instanceof InvalidInput) return { status: 400, body: { error: error.message } };
  if (error instanceof NotFound) return { status: 404, body: { error: NOT_FOUND[error.kind] } };
  if (error instanceof Conflict) return { status: 409, body: { error: CONFLICTS[error.kind] } };
  if (error instanceof HasPaidOrders) {
    return { status: 409, body: { error: `This event has paid orders: cancel it first (POST /api/admin/events/${error.eventId}/cancel) to refund and tell its buyers` } };
  }
  if (error instanceof CodeInUse) {
    // The spec's exact body: `inUse` is what tells this 409 apart.
    return { status: 409, body: { error: 'This access code is currently in use on another device', inUse: true } };
  }
  if (error instanceof AccessRefused) {
    const refusal = (REFUSALS[error.step as RefusalStep] as Record<RefusalReason, Refusal>)[error.reason as RefusalReason];
    const reason = refusal.withReason === false ? {} : { reason: error.reason };
    // Refresh's `endedBy` came before `reason`; clients may still read it.
    const endedBy = error.step === 'refresh' && error.reason === 'ended-by-admin' ? { endedBy: 'admin' } : {};
    return { status: refusal.status, body: { error: refusal.error, ...reason, ...endedBy } };
  }
  if (error instanceof RtmpDenied) return { status: 403, body: { error: 'Access denied' } };
  if (error instanceof TooManyRequests) {
    return { status: 429, body: { error: TOO_MANY[error.limit] }, headers: retryAfter(error.retryAfterSeconds) };
  }
  // Others kept changing the item (a crowd of claims and releases on one code): worth a retry, not a fault.
  if (error instanceof Contended) return { status: 503, body: { error: 'Busy: try again in a moment' }, headers: retryAfter(1) };
  // Stripe down or refusing: nothing was charged, the tickets went back (or go back when the session expires).
  if (error instanceof PaymentsUnavailable) return { status: 502, body: { error: 'The payment provider is unavailable: try again in a moment' } };
  if (error instanceof NotSignedIn) return { status: 401, body: { error: 'Authentication required', reason: error.reason } };
  // Sign-in refusals carry the failure as `reason`: the console words a lockout apart from the address's limit.
  if (error instanceof AccountLocked) {
    return {
      status: 429,
      body: { error: SIGN_IN_WORDS[error.failure], reason: error.failure },
      headers: retryAfter(error.retryAfterSeconds),
    };
  }
  // The spec's words for the login's limit per address (spec/access-gateway.md, "Errors"); `reason` tells it from the lock.
  if (error instanceof SignInThrottled) {
    return {
      status: 429,
      body: { error: SIGN_IN_WORDS[error.failure], reason: error.failure },
      headers: retryAfter(error.retryAfterSeconds),
    };
  }
  if (error instanceof SignInFailed) {
    return { status: 401, body: { error: SIGN_IN_WORDS[error.failure], reason: error.failure } };
  }
  return storeErrorAnswer(error);
}

/**
 * The stores' errors where no use case turned them into an answer of its own: what each means
 * for the request, never a 500 (`NotFound`, which stores and use cases share, is answered above).
 */
function storeErrorAnswer(error: unknown): ErrorAnswer | null {
  if (error instanceof LeaseHeld) return { status: 409, body: { error: 'Stream is on air on another ingest' } };
  if (error instanceof ExportTooLarge) {
    return { status: 413, body: { error: `More than ${LIST_LIMITS.exportRows.toLocaleString('en')} codes: export them in the background with POST /api/admin/events/:id/tokens/export` } };
  }
  // The table did not answer or refused for load: nothing to fix in the request, only to send it again.
  if (error instanceof StoreUnavailable) return { status: 503, body: { error: STORE_UNAVAILABLE }, headers: retryAfter(STORE_RETRY_SECONDS) };
  if (error instanceof ExportsNotConfigured) return { status: 503, body: { error: 'Exports are not configured' } };
  if (error instanceof WatermarkingNotConfigured) return { status: 503, body: { error: 'Watermarking is not configured' } };
  if (error instanceof InvalidCursor) return { status: 400, body: { error: 'cursor: is invalid' } };
  if (error instanceof AlreadyExists) return { status: 409, body: { error: 'Already exists' } };
  if (error instanceof SessionGone) return { status: 404, body: { error: SESSION_NOT_FOUND } };
  if (error instanceof AccessRevoked) return { status: 403, body: { error: PLAYBACK_REVOKED } };
  if (error instanceof RateLimited) {
    return { status: 429, body: { error: TOO_MANY.validate }, headers: retryAfter(error.retryAfterSeconds) };
  }
  return null;
}

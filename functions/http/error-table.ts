import {
  AccessRefused,
  AccountLocked,
  CodeInUse,
  Conflict,
  InvalidInput,
  NotSignedIn,
  RecordNotFound,
  RtmpDenied,
  SignInFailed,
  TooManyRequests,
  type ConflictKind,
  type RateLimitName,
  type RecordKind,
  type RefusalReasons,
  type RefusalStep,
  type SignInFailure,
} from '../domain/errors';
import { HttpError } from './http-error';

/** What an error answers: its status, `{ error, ...body }` and headers. */
export interface ErrorAnswer {
  status: number;
  body: { error: string; reason?: string } & Record<string, unknown>;
  headers?: Record<string, string>;
}

const INVALID_PLAYBACK = 'Valid playback token required';
const PLAYBACK_REVOKED = 'Access has been revoked';

const NOT_FOUND: Record<RecordKind, string> = {
  event: 'Event not found',
  token: 'Token not found',
  session: 'Session not found',
  account: 'Account not found',
};

const CONFLICTS: Record<ConflictKind, string> = {
  'username-taken': 'That login name is taken',
  'owner-managed-elsewhere': 'The owner account is managed with set-admin-password, not here',
  'own-account': 'You cannot change your own role or disable yourself',
  'owner-password-elsewhere': 'The owner password is set with set-admin-password',
  'enrolment-not-started': 'Start two-factor enrolment first',
  'preview-of-inactive-event': 'Event is deactivated: activate it to preview the stream',
  'stream-on-air-elsewhere': 'Stream is on air on another ingest',
};

/**
 * The spec's error rows of the viewer endpoints (spec/access-gateway.md,
 * "Errors"), by step and reason. Refresh's 403 covers a revoked code and a
 * deactivated event alike; `reason` tells them apart.
 */
const REFUSALS: { [S in RefusalStep]: Record<RefusalReasons[S], [status: number, error: string]> } = {
  validate: {
    'unknown-code': [401, 'Invalid access code'],
    revoked: [403, 'Access code has been revoked'],
    'event-inactive': [403, 'This event is not currently available'],
    expired: [410, 'Access code has expired'],
  },
  refresh: {
    'invalid-token': [401, INVALID_PLAYBACK],
    revoked: [403, PLAYBACK_REVOKED],
    'event-inactive': [403, PLAYBACK_REVOKED],
    expired: [410, 'Access has expired'],
    'session-ended': [401, INVALID_PLAYBACK],
    'taken-over': [401, INVALID_PLAYBACK],
    'ended-by-admin': [401, INVALID_PLAYBACK],
  },
  heartbeat: {
    'invalid-token': [401, INVALID_PLAYBACK],
    revoked: [403, PLAYBACK_REVOKED],
    'event-inactive': [403, PLAYBACK_REVOKED],
    'session-ended': [404, 'Session not found'],
    'taken-over': [404, 'Session not found'],
    'ended-by-admin': [404, 'Session not found'],
  },
  release: {
    'invalid-token': [401, INVALID_PLAYBACK],
  },
};

const TOO_MANY: Record<RateLimitName, string> = {
  validate: 'Too many requests. Please try again later.',
  refresh: 'Too many refresh requests',
  login: 'Too many login attempts',
};

const SIGN_IN_FAILURES: Record<Exclude<SignInFailure, 'locked'>, string> = {
  'wrong-password': 'Invalid password',
  'wrong-credentials': 'Invalid username or password',
  'wrong-code': 'Invalid code',
  'sign-in-again': 'Sign in again',
};

const retryAfter = (seconds: number) => ({ 'retry-after': String(seconds) });

/**
 * The one table from errors to answers; the single error step
 * (`middlewares/error-responses.ts`) renders what it returns. Null: not a
 * refusal, so a 500 whose details are logged, never shown.
 */
export function errorAnswer(error: unknown): ErrorAnswer | null {
  if (error instanceof HttpError) return { status: error.status, body: { error: error.message } };
  if (error instanceof InvalidInput) return { status: 400, body: { error: error.message } };
  if (error instanceof RecordNotFound) return { status: 404, body: { error: NOT_FOUND[error.kind] } };
  if (error instanceof Conflict) return { status: 409, body: { error: CONFLICTS[error.kind] } };
  if (error instanceof CodeInUse) {
    // The spec's exact body: `inUse` is what tells this 409 apart.
    return { status: 409, body: { error: 'This access code is currently in use on another device', inUse: true } };
  }
  if (error instanceof AccessRefused) {
    const [status, message] = (REFUSALS[error.step as RefusalStep] as Record<string, [number, string]>)[error.reason]!;
    // Kept from before `reason` existed: the player's first way to tell an organiser's end.
    const endedBy = error.reason === 'ended-by-admin' && error.step === 'refresh' ? { endedBy: 'admin' } : {};
    return { status, body: { error: message, reason: error.reason, ...endedBy } };
  }
  if (error instanceof RtmpDenied) return { status: 403, body: { error: 'Access denied' } };
  if (error instanceof TooManyRequests) {
    return { status: 429, body: { error: TOO_MANY[error.limit] }, headers: retryAfter(error.retryAfterSeconds) };
  }
  if (error instanceof NotSignedIn) return { status: 401, body: { error: 'Authentication required' } };
  if (error instanceof AccountLocked) {
    return { status: 429, body: { error: 'Account locked after repeated failed sign-ins' }, headers: retryAfter(error.retryAfterSeconds) };
  }
  if (error instanceof SignInFailed) return { status: 401, body: { error: SIGN_IN_FAILURES[error.failure as Exclude<SignInFailure, 'locked'>] } };
  return null;
}

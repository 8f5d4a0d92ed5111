import { describe, expect, it } from 'vitest';
import {
  AccessRefused,
  AccessRevoked,
  AccountLocked,
  AlreadyExists,
  CodeInUse,
  Conflict,
  ExportsNotConfigured,
  WatermarkingNotConfigured,
  ExportTooLarge,
  HasPaidOrders,
  PaymentsUnavailable,
  Contended,
  InvalidCursor,
  InvalidInput,
  ItemsFailed,
  JobStopped,
  LeaseHeld,
  NotFound,
  NotSignedIn,
  RateLimited,
  RtmpDenied,
  SessionGone,
  SignInFailed,
  SignInThrottled,
  StoreUnavailable,
  TooManyRequests,
} from '../../functions/domain/errors';
import * as domainErrors from '../../functions/domain/errors';
import { errorAnswer } from '../../functions/http/error-table';
import { HttpError } from '../../functions/http/http-error';

const INVALID = 'Valid playback token required';
const REVOKED = 'Access has been revoked';

const answered = [
    // Validation (spec rows "validate").
    [new InvalidInput(null, 'Access code is required'), 400, { error: 'Access code is required' }],
    [new AccessRefused('validate', 'unknown-code'), 401, { error: 'Invalid access code' }],
    [new AccessRefused('validate', 'revoked'), 403, { error: 'Access code has been revoked', reason: 'revoked' }],
    [new AccessRefused('validate', 'event-inactive'), 403, { error: 'This event is not currently available', reason: 'event-inactive' }],
    [new AccessRefused('validate', 'expired'), 410, { error: 'Access code has expired', reason: 'expired' }],
    [new CodeInUse('x'), 409, { error: 'This access code is currently in use on another device', inUse: true }],
    // Refresh and the long-lived URL.
    [new AccessRefused('refresh', 'invalid-token'), 401, { error: INVALID, reason: 'invalid-token' }],
    [new AccessRefused('refresh', 'revoked'), 403, { error: REVOKED, reason: 'revoked' }],
    [new AccessRefused('refresh', 'event-inactive'), 403, { error: REVOKED, reason: 'event-inactive' }],
    [new AccessRefused('refresh', 'expired'), 410, { error: 'Access has expired', reason: 'expired' }],
    [new AccessRefused('refresh', 'session-ended'), 401, { error: INVALID, reason: 'session-ended' }],
    [new AccessRefused('refresh', 'taken-over'), 401, { error: INVALID, reason: 'taken-over' }],
    [new AccessRefused('refresh', 'ended-by-admin'), 401, { error: INVALID, reason: 'ended-by-admin', endedBy: 'admin' }],
    // Heartbeat and release.
    [new AccessRefused('heartbeat', 'invalid-token'), 401, { error: INVALID, reason: 'invalid-token' }],
    [new AccessRefused('heartbeat', 'revoked'), 403, { error: REVOKED, reason: 'revoked' }],
    [new AccessRefused('heartbeat', 'event-inactive'), 403, { error: REVOKED, reason: 'event-inactive' }],
    [new AccessRefused('heartbeat', 'session-ended'), 404, { error: 'Session not found', reason: 'session-ended' }],
    [new AccessRefused('heartbeat', 'taken-over'), 404, { error: 'Session not found', reason: 'taken-over' }],
    [new AccessRefused('heartbeat', 'ended-by-admin'), 404, { error: 'Session not found', reason: 'ended-by-admin' }],
    [new AccessRefused('release', 'invalid-token'), 401, { error: INVALID, reason: 'invalid-token' }],
    // The RTMP callback's one refusal.
    [new RtmpDenied(), 403, { error: 'Access denied' }],
    // Input, records, conflicts.
    [new InvalidInput('title', 'is required'), 400, { error: 'title: is required' }],
    [new InvalidInput(null, 'since parameter required'), 400, { error: 'since parameter required' }],
    [new NotFound('event'), 404, { error: 'Event not found' }],
    [new NotFound('code'), 404, { error: 'Token not found' }],
    [new NotFound('session'), 404, { error: 'Session not found' }],
    [new NotFound('account'), 404, { error: 'Account not found' }],
    [new NotFound('job'), 404, { error: 'Job not found' }],
    [new Conflict('username-taken'), 409, { error: 'That login name is taken' }],
    [new Conflict('owner-managed-elsewhere'), 409, { error: 'The owner account is managed with set-admin-password, not here' }],
    [new Conflict('own-account'), 409, { error: 'You cannot change your own role or disable yourself' }],
    [new Conflict('owner-password-elsewhere'), 409, { error: 'The owner password is set with set-admin-password' }],
    [new Conflict('enrolment-not-started'), 409, { error: 'Start two-factor enrolment first' }],
    [new Conflict('preview-of-inactive-event'), 409, { error: 'Event is deactivated: activate it to preview the stream' }],
    [new ExportTooLarge('x'), 413, { error: 'More than 20,000 codes: export them in the background with POST /api/admin/events/:id/tokens/export' }],
    [new ExportsNotConfigured('x'), 503, { error: 'Exports are not configured' }],
    [new WatermarkingNotConfigured('x'), 503, { error: 'Watermarking is not configured' }],
    [new HasPaidOrders('ev1'), 409, { error: 'This event has paid orders: cancel it first (POST /api/admin/events/ev1/cancel) to refund and tell its buyers' }],
    // Checkout.
    [new Conflict('sold-out'), 409, { error: 'sold out' }],
    [new Conflict('job-not-failed'), 409, { error: 'Only a failed job can be retried' }],
    [new Conflict('not-on-sale'), 409, { error: 'This event is not on sale' }],
    [new NotFound('checkout'), 404, { error: 'Checkout not found' }],
    [new PaymentsUnavailable(false), 502, { error: 'The payment provider is unavailable: try again in a moment' }],
    // Sign-in.
    [new NotSignedIn(), 401, { error: 'Authentication required', reason: 'no-session' }],
    [new NotSignedIn('account-changed'), 401, { error: 'Authentication required', reason: 'account-changed' }],
    [new SignInFailed('owner', 'wrong-password'), 401, { error: 'Invalid password', reason: 'wrong-password' }],
    [new SignInFailed('lou', 'wrong-credentials'), 401, { error: 'Invalid username or password', reason: 'wrong-credentials' }],
    [new SignInFailed('lou', 'wrong-code'), 401, { error: 'Invalid code', reason: 'wrong-code' }],
    [new SignInFailed('lou', 'sign-in-again'), 401, { error: 'Sign in again', reason: 'sign-in-again' }],
    // The stores' errors that no use case turned into its own answer: never a 500.
    [new NotFound('event', 'e1'), 404, { error: 'Event not found' }],
    [new NotFound('code', 't1'), 404, { error: 'Token not found' }],
    [new LeaseHeld('event e1'), 409, { error: 'Stream is on air on another ingest' }],
    [new InvalidCursor('not a cursor'), 400, { error: 'cursor: is invalid' }],
    [new AlreadyExists('code exists'), 409, { error: 'Already exists' }],
    [new SessionGone('session ended', null), 404, { error: 'Session not found' }],
    [new AccessRevoked('code or event no longer active', null), 403, { error: REVOKED }],
    // The HTTP layer's own refusals pass through as they are.
    [new HttpError(415, 'Content-Type must be application/json'), 415, { error: 'Content-Type must be application/json' }],
] as const;
const limited = [
  [new TooManyRequests('validate', 42), { error: 'Too many requests. Please try again later.' }],
  [new TooManyRequests('refresh', 42), { error: 'Too many refresh requests' }],
  [new TooManyRequests('login', 42), { error: 'Too many login attempts' }],
  [new AccountLocked('lou', 42), { error: 'Account locked after repeated failed sign-ins', reason: 'locked' }],
  [new SignInThrottled(null, 42), { error: 'Too many login attempts', reason: 'address-locked' }],
  // A full window no use case named (the use cases turn RateLimited into TooManyRequests with their limit's words).
  [new RateLimited(42), { error: 'Too many requests. Please try again later.' }],
] as const;
const contended = new Contended('kept changing');
const unavailable = new StoreUnavailable('DynamoDB unavailable: Error read ECONNRESET');
// JobStopped and ItemsFailed are a job's reasons to fail, in the worker: they never answer a request.
const unanswered = [new Error('boom'), 'a string', new JobStopped('The event was deleted'), new ItemsFailed('12 codes could not be revoked', new Error('throttled'))];

describe('the error table', () => {
  it.each(answered)('%s answers %i', (error, status, body) => {
    const answer = errorAnswer(error);
    expect(answer).toEqual({ status, body });
  });

  it.each(limited)('%s answers 429 with Retry-After', (error, body) => {
    expect(errorAnswer(error)).toEqual({ status: 429, body, headers: { 'retry-after': '42' } });
  });

  it('answers a write that kept losing races 503 with Retry-After, never a false "ended" or "not found"', () => {
    expect(errorAnswer(contended)).toEqual({
      status: 503,
      body: { error: 'Busy: try again in a moment' },
      headers: { 'retry-after': '1' },
    });
  });

  it('answers a store that did not answer or refused for load 503 with Retry-After, never a 500', () => {
    expect(errorAnswer(unavailable)).toEqual({
      status: 503,
      body: { error: 'The service is busy: try again in a moment' },
      headers: { 'retry-after': '2' },
    });
  });

  it('leaves every other error to the 500', () => {
    for (const error of unanswered) expect(errorAnswer(error)).toBeNull();
  });

  it('covers every error class of the domain', () => {
    const seen = new Set([...answered.map(([error]) => error), ...limited.map(([error]) => error), contended, unavailable, ...unanswered].map((error) => error.constructor));
    const classes = Object.values(domainErrors).filter((value) => typeof value === 'function' && value !== domainErrors.DomainError);
    expect(classes.filter((value) => !seen.has(value as never)).map((value) => (value as { name: string }).name)).toEqual([]);
  });
});

import { normalizeAccessCode } from './access-code';
import { RATE_LIMITS, type AppConfig } from './config';
import { AccessRevoked, CodeInUse, RateLimited, SessionGone } from './errors';
import { accessEndsAt } from './event-status';
import { HttpError } from './http-error';
import { PLAYBACK_TOKEN_TTL_SECONDS, streamPathOf, type PlaybackClaims } from './playback-claims';
import { endedSessionMatters, endOf } from './ended-sessions';
import { signPlaybackToken, verifyPlaybackToken } from './playback-token';
import { playbackUrlOf } from './playback-url';
import { randomId } from './random';
import { rateLimitSubject } from './rate-limit-subject';
import type { CodeRecord, EndedSession, EventRecord } from './records';
import type { Store } from './store';
import { viewerEventView } from './views';

export interface AccessDeps {
  store: Store;
  config: AppConfig;
  now(): Date;
}

const INVALID_PLAYBACK = 'Valid playback token required';
/**
 * Upper bound of a long-lived playback URL (for players that cannot refresh):
 * longer than any show, short enough that the edge's deny key of its session,
 * kept until then, does not pile up.
 */
const LONG_LIVED_URL_MAX_SECONDS = 12 * 3600;
/** Enough of a user agent to summarise it for admins. */
const USER_AGENT_MAX = 300;

/** Runs a rate-limit hit; a full window becomes the spec's 429 with `Retry-After`. */
async function limit(store: Store, key: string, rule: { limit: number; windowSeconds: number }, now: Date, message: string) {
  try {
    await store.hitRateLimit({ key, ...rule, now });
  } catch (error) {
    if (error instanceof RateLimited) {
      throw new HttpError(429, message, { headers: { 'retry-after': String(error.retryAfterSeconds) } });
    }
    throw error;
  }
}

function sessionIsLive(code: CodeRecord, now: Date, timeoutSeconds: number): boolean {
  return !!code.session && Date.parse(code.session.heartbeatAt) > now.getTime() - timeoutSeconds * 1000;
}

/** Ended sessions matter only while a JWT issued to them could still be unexpired. */
function keepEndedAfter(now: Date): string {
  return new Date(now.getTime() - PLAYBACK_TOKEN_TTL_SECONDS * 1000).toISOString();
}

/**
 * Checks shared by validation and refresh, in the order a viewer should hear
 * them: revoked code, then a deactivated event, then the end of access.
 */
function accessProblem(code: CodeRecord, event: EventRecord, now: Date): 'revoked' | 'inactive' | 'expired' | null {
  if (code.isRevoked) return 'revoked';
  if (!event.isActive) return 'inactive';
  if (now.toISOString() >= accessEndsAt(event)) return 'expired';
  return null;
}

function validateError(problem: 'revoked' | 'inactive' | 'expired'): HttpError {
  if (problem === 'revoked') return new HttpError(403, 'Access code has been revoked');
  if (problem === 'inactive') return new HttpError(403, 'This event is not currently available');
  return new HttpError(410, 'Access code has expired');
}

/**
 * Trades an access code for a playback session and JWT. Round trips in
 * sequence: (rate limit ‖ code), event, conditional claim.
 */
export async function validateCode(
  deps: AccessDeps,
  input: { code: unknown; ip: string; userAgent?: string; playbackBaseUrl: string },
) {
  const now = deps.now();
  const normalized = normalizeAccessCode(input.code);
  const [, code] = await Promise.all([
    limit(deps.store, `validate#${rateLimitSubject(input.ip)}`, RATE_LIMITS.validate, now, 'Too many requests. Please try again later.'),
    normalized ? deps.store.getCode(normalized) : Promise.resolve(null),
  ]);
  if (!normalized) throw new HttpError(400, 'Access code is required');
  const event = code ? await deps.store.getEvent(code.eventId) : null;
  if (!code || !event) throw new HttpError(401, 'Invalid access code');

  const problem = accessProblem(code, event, now);
  if (problem) throw validateError(problem);
  const inUse = () => new HttpError(409, 'This access code is currently in use on another device', { extra: { inUse: true } });
  if (sessionIsLive(code, now, deps.config.sessionTimeoutSeconds)) throw inUse();

  const at = now.toISOString();
  const ended: EndedSession[] = code.endedSessions.filter((entry) => endedSessionMatters(entry, keepEndedAfter(now), at));
  if (code.session) ended.push(endOf(code.session, at));
  const session = {
    id: randomId(24),
    startedAt: at,
    heartbeatAt: at,
    clientIp: input.ip,
    ...(input.userAgent ? { userAgent: input.userAgent.slice(0, USER_AGENT_MAX) } : {}),
  };
  try {
    await deps.store.claimSession({
      code: code.code,
      expectedRevision: code.revision,
      session,
      endedSessions: ended,
      redeemed: code.redeemedAt ? null : { at, ip: input.ip },
      now: at,
    });
  } catch (error) {
    if (!(error instanceof CodeInUse)) throw error;
    // Lost a race: usually another device's claim, but the code may have been revoked meanwhile.
    const latest = await deps.store.getCode(code.code);
    if (!latest || latest.isRevoked) throw validateError('revoked');
    if (!latest.eventActive) throw validateError('inactive');
    throw inUse();
  }

  const grant = { code: code.code, eventId: event.id, sessionId: session.id };
  const { token, expiresIn } = await signPlaybackToken(grant, deps.config.signingKeys, now);
  return {
    event: viewerEventView(event, now),
    playbackToken: token,
    playbackUrl: shortPlaybackUrl(deps, input.playbackBaseUrl, grant, now, expiresIn),
    playbackBaseUrl: input.playbackBaseUrl,
    streamPath: streamPathOf(event.id),
    expiresAt: accessEndsAt(event),
    tokenExpiresIn: expiresIn,
  };
}

/** The header-less URL that lives as long as the JWT issued with it. */
function shortPlaybackUrl(
  deps: AccessDeps,
  playbackBaseUrl: string,
  grant: { code: string; eventId: string; sessionId: string },
  now: Date,
  expiresIn: number,
): string {
  const expiresAt = Math.floor(now.getTime() / 1000) + expiresIn;
  return playbackUrlOf(playbackBaseUrl, { ...grant, expiresAt }, deps.config.signingKeys);
}

async function playbackClaims(deps: AccessDeps, token: string | null, now: Date, allowExpired: boolean): Promise<PlaybackClaims> {
  const verified = token ? await verifyPlaybackToken(token, deps.config.signingKeys, now) : { ok: false as const };
  // A preview token is for the media only: no session of it to refresh, keep alive or release.
  if (!verified.ok || verified.claims.prv) throw new HttpError(401, INVALID_PLAYBACK);
  if (verified.expired && !allowExpired) throw new HttpError(401, INVALID_PLAYBACK);
  return verified.claims;
}

/**
 * A new JWT for the same session, while that session is still the code's
 * live one. Round trips: (rate limit ‖ code ‖ event), all in parallel.
 */
export async function refreshPlayback(deps: AccessDeps, token: string | null, playbackBaseUrl: string) {
  const now = deps.now();
  const { code, event, claims } = await liveSessionOf(deps, token, now);
  const grant = { code: code.code, eventId: event.id, sessionId: claims.sid };
  const { token: playbackToken, expiresIn } = await signPlaybackToken(grant, deps.config.signingKeys, now);
  return { playbackToken, playbackUrl: shortPlaybackUrl(deps, playbackBaseUrl, grant, now, expiresIn), tokenExpiresIn: expiresIn };
}

/**
 * The checks of refresh (rate limit included): the token's session must be its
 * code's live one, the code not revoked, the event active and not over.
 */
async function liveSessionOf(deps: AccessDeps, token: string | null, now: Date) {
  const verified = token ? await verifyPlaybackToken(token, deps.config.signingKeys, now) : { ok: false as const };
  if (!verified.ok || verified.claims.prv) throw new HttpError(401, INVALID_PLAYBACK);
  if (verified.expired) throw new HttpError(410, 'Access has expired');
  const claims = verified.claims;
  const [, code, event] = await Promise.all([
    limit(deps.store, `refresh#${claims.code}`, RATE_LIMITS.refresh, now, 'Too many refresh requests'),
    deps.store.getCode(claims.code),
    deps.store.getEvent(claims.eid),
  ]);
  if (!code || !event || code.eventId !== event.id) throw new HttpError(403, 'Access has been revoked');
  const problem = accessProblem(code, event, now);
  if (problem === 'expired') throw new HttpError(410, 'Access has expired');
  if (problem) throw new HttpError(403, 'Access has been revoked');
  if (code.session?.id !== claims.sid || !sessionIsLive(code, now, deps.config.sessionTimeoutSeconds)) {
    // The player tells "an organiser ended your session" apart from other endings.
    const byAdmin = code.endedSessions.some((ended) => ended.sessionId === claims.sid && ended.by === 'admin');
    throw new HttpError(401, INVALID_PLAYBACK, byAdmin ? { extra: { endedBy: 'admin' } } : {});
  }
  return { code, event, claims };
}

/**
 * A playback URL for a player that cannot refresh (the page's native video,
 * AirPlay, a TV, VLC): it lasts until the code's access ends, at most
 * `LONG_LIVED_URL_MAX_SECONDS`. The session is marked, so that its end
 * (release, takeover) is pushed to the edge and kept there until the URL
 * expires. Counts against the refresh rate limit; same errors as refresh.
 */
export async function longLivedPlaybackUrl(deps: AccessDeps, token: string | null, playbackBaseUrl: string) {
  const now = deps.now();
  const { code, event, claims } = await liveSessionOf(deps, token, now);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const expiresAt = Math.min(Math.floor(Date.parse(accessEndsAt(event)) / 1000), nowSeconds + LONG_LIVED_URL_MAX_SECONDS);
  try {
    await deps.store.markSessionLongLived({
      code: code.code,
      sessionId: claims.sid,
      until: new Date(expiresAt * 1000).toISOString(),
      staleBefore: new Date(now.getTime() - deps.config.sessionTimeoutSeconds * 1000).toISOString(),
    });
  } catch (error) {
    if (error instanceof SessionGone) throw new HttpError(401, INVALID_PLAYBACK);
    if (error instanceof AccessRevoked) throw new HttpError(403, 'Access has been revoked');
    throw error;
  }
  const grant = { code: code.code, eventId: event.id, sessionId: claims.sid, expiresAt };
  return {
    playbackUrl: playbackUrlOf(playbackBaseUrl, grant, deps.config.signingKeys),
    expiresAt: new Date(expiresAt * 1000).toISOString(),
    expiresIn: expiresAt - nowSeconds,
  };
}

/** Keeps the session alive: one conditional write. */
export async function heartbeat(deps: AccessDeps, token: string | null) {
  const now = deps.now();
  const claims = await playbackClaims(deps, token, now, false);
  try {
    await deps.store.heartbeat({
      code: claims.code,
      sessionId: claims.sid,
      now: now.toISOString(),
      staleBefore: new Date(now.getTime() - deps.config.sessionTimeoutSeconds * 1000).toISOString(),
    });
  } catch (error) {
    if (error instanceof SessionGone) throw new HttpError(404, 'Session not found');
    if (error instanceof AccessRevoked) throw new HttpError(403, 'Access has been revoked');
    throw error;
  }
  return { ok: true as const };
}

/** Ends the session at once. An expired but genuine token may still release its own session. */
export async function releasePlayback(deps: AccessDeps, token: string | null) {
  const now = deps.now();
  const claims = await playbackClaims(deps, token, now, true);
  await deps.store.releaseSession({
    code: claims.code,
    sessionId: claims.sid,
    now: now.toISOString(),
    keepEndedAfter: keepEndedAfter(now),
  });
  return { released: true as const };
}

import { beatSession, countPresence, isLiveSession, normalizeAccessCode, sessionById, sessionInSlot, sessionSlotOf, slotSessionId, slotToClaim, MAX_SESSION_SLOTS } from '../codes';
import type { AppConfig } from '../config';
import { endedSessionsAfter } from './edge-deny';
import { AccessRefused, AccessRevoked, CodeInUse, InvalidInput, SessionGone, type SessionEndReason } from '../errors';
import { accessEndsAt } from '../event-status';
import { PLAYBACK_TOKEN_TTL_SECONDS, PRESENCE_WINDOW_SECONDS, streamPathOf, type PlaybackClaims } from '../playback-claims';
import { checkViewerToken, signPlaybackToken } from './playback-token';
import { parseQualityReport, type DroppedReport } from '../playback-quality';
import { playbackUrlOf } from './playback-url';
import { randomId } from '../random';
import { rateLimitSubject } from '../rate-limit-subject';
import { hitRateLimit, refuseIfRateLimited } from '../rate-limits';
import type { CounterStore } from '../counter-store';
import type { CodeRecord, EventRecord } from '../records';
import { devicesPerCodeOf, geoAllows, viewerEventView } from '../events';
import type { EventStore } from '../events';
import type { CodeStore } from '../codes';

/** Where heartbeats tell of the players' reports they dropped. */
export interface DroppedReports {
  dropped(sessionId: string, report: DroppedReport): void;
}

/**
 * The event item is one key read by every validation and refresh: eventually consistent reads halve
 * its load. A (de)activation reaches them within a second; the claim's condition and the edge hold meanwhile.
 */
const VIEWER_READ = { consistent: false };

/**
 * Upper bound of a long-lived playback URL (for players that cannot refresh):
 * longer than any show, short enough that the edge's deny key of its session,
 * kept until then, does not pile up.
 */
const LONG_LIVED_URL_MAX_SECONDS = 12 * 3600;
/** Enough of a user agent to summarise it for admins. */
const USER_AGENT_MAX = 300;

/**
 * The validation limit exists to stop code guessing, so it counts failed attempts only
 * (malformed or unknown codes): many honest viewers behind one address (carrier NAT,
 * venue Wi-Fi) each validate their own code without filling it. Once it is full, every
 * validation from the address waits, a correct guess included.
 */
async function failedValidation(counters: CounterStore, subject: string, now: Date, error: Error): Promise<never> {
  await hitRateLimit(counters, 'validate', subject, now);
  throw error;
}

/**
 * Checks shared by validation and refresh, in the order a viewer should hear
 * them: revoked code, then a deactivated event, then the end of access.
 */
function accessProblem(code: CodeRecord, event: EventRecord, now: Date): 'revoked' | 'event-inactive' | 'expired' | null {
  if (code.isRevoked) return 'revoked';
  if (!event.isActive) return 'event-inactive';
  if (now.toISOString() >= accessEndsAt(event)) return 'expired';
  return null;
}

/** Refuses a viewer whose country (null: unknown) the event's country rule leaves out, at validate or refresh. */
function refuseOutsideGeo(step: 'validate' | 'refresh', event: EventRecord, country: string | null): void {
  if (!geoAllows(event.geo, country)) throw new AccessRefused(step, 'geo');
}

/** Why session `sessionId` is not live on its code (any more): the player says it in its own words. */
function sessionEndReason(code: CodeRecord | null, sessionId: string): SessionEndReason {
  if (code?.endedSessions.some((ended) => ended.sessionId === sessionId && ended.by === 'admin')) return 'ended-by-admin';
  // Its slot holds another device's session: that device took the slot over.
  const slotHolder = code && sessionInSlot(code, sessionSlotOf(sessionId));
  if (slotHolder && slotHolder.id !== sessionId) return 'taken-over';
  return 'session-ended';
}

/** Why a conditional session write (heartbeat, marking a long-lived URL) did not apply, from the code as that write saw it. */
function lostSessionReason(error: SessionGone | AccessRevoked, claims: PlaybackClaims) {
  const code = error.seen;
  if (error instanceof SessionGone) return sessionEndReason(code, claims.sid);
  return code && !code.isRevoked && !code.eventActive ? ('event-inactive' as const) : ('revoked' as const);
}

type ValidateDeps = { stores: { codes: CodeStore; counters: CounterStore; events: EventStore }; config: AppConfig; now(): Date };
type ValidateInput = { code: unknown; ip: string; userAgent?: string; playbackBaseUrl: string; country?: string | null };

/**
 * Trades an access code for a playback session and JWT. Round trips in
 * sequence: (rate limit ‖ code), event, (conditional claim ‖ signing ‖ counters).
 */
export async function validateCode(deps: ValidateDeps, input: ValidateInput) {
  const now = deps.now();
  const { codes, events, counters } = deps.stores;
  const normalized = normalizeAccessCode(input.code);
  const subject = rateLimitSubject(input.ip);
  const [, code] = await Promise.all([
    refuseIfRateLimited(counters, 'validate', subject, now),
    normalized ? codes.getCode(normalized) : Promise.resolve(null),
  ]);
  if (!normalized) return failedValidation(counters, subject, now, new InvalidInput(null, 'Access code is required'));
  const event = code ? await events.getEvent(code.eventId, VIEWER_READ) : null;
  if (!code || !event) return failedValidation(counters, subject, now, new AccessRefused('validate', 'unknown-code'));

  const problem = accessProblem(code, event, now);
  if (problem) throw new AccessRefused('validate', problem);
  refuseOutsideGeo('validate', event, input.country ?? null);
  const { grant, token, expiresIn } = await claimSlot(deps, input, event, code, 1);
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

/**
 * Claims a slot of `code` (as last read) for a new device: a free one, or one whose device stopped
 * beating (takeover); 409 while the event's `devicesPerCode` devices are live. Losing the claim's race
 * to another device's claim, it tries again from the code that write saw while a slot is left: of
 * many devices at once, exactly `devicesPerCode` get in. Each lost attempt is another device's write,
 * so `MAX_SESSION_SLOTS` attempts are enough for every slot to fill.
 */
async function claimSlot(deps: ValidateDeps, input: ValidateInput, event: EventRecord, code: CodeRecord, attempt: number) {
  const { codes, counters } = deps.stores;
  const now = deps.now();
  const inUse = () => new CodeInUse('the code\'s devices hold live sessions');
  const claim = slotToClaim(code, devicesPerCodeOf(event), now, deps.config.sessionTimeoutSeconds);
  if (!claim) throw inUse();

  const at = now.toISOString();
  // A session still in the slot timed out: another device takes over, and the edge must deny it.
  const ended = endedSessionsAfter(code, claim.replaced, 'takeover', at);
  const session = {
    id: slotSessionId(randomId(24), claim.slot),
    startedAt: at,
    heartbeatAt: at,
    clientIp: input.ip,
    ...(input.userAgent ? { userAgent: input.userAgent.slice(0, USER_AGENT_MAX) } : {}),
  };
  const grant = { code: code.code, eventId: event.id, sessionId: session.id };
  const firstRedemption = !code.redeemedAt;
  // Signing and counting go alongside the claim (one round trip fewer in sequence); a failed claim takes the counts back.
  const counted = (delta: number) =>
    Promise.all([
      countPresence(counters, { eid: event.id, code: code.code }, now, delta),
      firstRedemption ? counters.countRedemption({ eventId: event.id, code: code.code, delta }) : null,
    ]);
  const [claimError, signed] = await Promise.all([
    codes
      .claimSession({
        code: code.code,
        expectedRevision: code.revision,
        session,
        ...ended,
        redeemed: firstRedemption ? { at, ip: input.ip } : null,
        now: at,
      })
      .then(() => null, (error: unknown) => error),
    signPlaybackToken(grant, deps.config.signingKeys, now),
    counted(1),
  ]);
  if (!claimError) return { grant, ...signed };
  await counted(-1);
  if (!(claimError instanceof CodeInUse)) throw claimError;
  // Lost a race: usually another device's claim, but the code may have been revoked (or deleted) meanwhile.
  const seen = claimError.seen;
  if (seen === null || seen?.isRevoked) throw new AccessRefused('validate', 'revoked');
  if (seen && !seen.eventActive) throw new AccessRefused('validate', 'event-inactive');
  if (!seen || attempt >= MAX_SESSION_SLOTS) throw inUse();
  return claimSlot(deps, input, event, seen, attempt + 1);
}

/** The header-less URL that lives as long as the JWT issued with it. */
function shortPlaybackUrl(
  deps: { config: AppConfig },
  playbackBaseUrl: string,
  grant: { code: string; eventId: string; sessionId: string },
  now: Date,
  expiresIn: number,
): string {
  const expiresAt = Math.floor(now.getTime() / 1000) + expiresIn;
  return playbackUrlOf(playbackBaseUrl, { ...grant, expiresAt }, deps.config.signingKeys);
}

/**
 * A new JWT for the same session, while that session is still the code's
 * live one. Round trips: (rate limit ‖ code ‖ event), all in parallel.
 */
export async function refreshPlayback(
  deps: { stores: { codes: CodeStore; counters: CounterStore; events: EventStore }; config: AppConfig; now(): Date },
  token: string | null,
  playbackBaseUrl: string,
  country: string | null = null,
) {
  const now = deps.now();
  const { code, event, claims } = await liveSessionOf(deps, token, now, country);
  const grant = { code: code.code, eventId: event.id, sessionId: claims.sid };
  const [{ token: playbackToken, expiresIn }] = await Promise.all([
    signPlaybackToken(grant, deps.config.signingKeys, now),
    countPresence(deps.stores.counters, claims, now, 1),
  ]);
  return { playbackToken, playbackUrl: shortPlaybackUrl(deps, playbackBaseUrl, grant, now, expiresIn), tokenExpiresIn: expiresIn };
}

/**
 * The refresh limit (12 an hour) is the spec's per code, and one device's need: with several devices on a
 * code, each slot has its own (slot 1's key is the code's, as before slots).
 */
function refreshLimitSubject(claims: PlaybackClaims): string {
  const slot = sessionSlotOf(claims.sid);
  return slot === 1 ? claims.code : `${claims.code}-${slot}`;
}

/**
 * The checks of refresh (rate limit included): the token's session must be its
 * code's live one, the code not revoked, the event active and not over.
 */
async function liveSessionOf(
  deps: { stores: { codes: CodeStore; counters: CounterStore; events: EventStore }; config: AppConfig },
  token: string | null,
  now: Date,
  country: string | null,
) {
  // An expired JWT cannot be refreshed: the viewer validates the code again.
  const checked = await checkViewerToken(token, deps.config.signingKeys, now, { allowExpired: false });
  if (!checked.ok) throw new AccessRefused('refresh', checked.problem === 'expired' ? 'expired' : 'invalid-token');
  const { claims } = checked;
  const [, code, event] = await Promise.all([
    hitRateLimit(deps.stores.counters, 'refresh', refreshLimitSubject(claims), now),
    deps.stores.codes.getCode(claims.code),
    deps.stores.events.getEvent(claims.eid, VIEWER_READ),
  ]);
  if (!code || !event || code.eventId !== event.id) throw new AccessRefused('refresh', 'revoked');
  const problem = accessProblem(code, event, now);
  if (problem) throw new AccessRefused('refresh', problem);
  refuseOutsideGeo('refresh', event, country);
  const session = sessionById(code, claims.sid);
  if (!session || !isLiveSession(session, now, deps.config.sessionTimeoutSeconds)) {
    throw new AccessRefused('refresh', sessionEndReason(code, claims.sid));
  }
  return { code, event, claims };
}

/**
 * Keeps on the event the latest expiry of its long-lived URLs (edge-deny.ts, `eventDenyUntil`), rounded up
 * to the hour and never past the access end: the event item is read by every viewer, so it is written at
 * most about once an hour, not once per URL (the read decides; the write's condition keeps the maximum).
 */
async function keepEventDeniedUntil(deps: { stores: { events: EventStore } }, event: EventRecord, expiresAtSeconds: number): Promise<void> {
  const hour = 3600;
  const until = new Date(Math.min(Math.ceil(expiresAtSeconds / hour) * hour * 1000, Date.parse(accessEndsAt(event)))).toISOString();
  if (event.denyUntil && event.denyUntil >= until) return;
  await deps.stores.events.extendEventDenyUntil(event.id, until);
}

/**
 * A playback URL for a player that cannot refresh (the page's native video,
 * AirPlay, a TV, VLC): it lasts until the code's access ends, at most
 * `LONG_LIVED_URL_MAX_SECONDS`. The session is marked, so that its end
 * (release, takeover) is pushed to the edge and kept there until the URL
 * expires. Counts against the refresh rate limit; same errors as refresh.
 */
export async function longLivedPlaybackUrl(
  deps: { stores: { codes: CodeStore; counters: CounterStore; events: EventStore }; config: AppConfig; now(): Date },
  token: string | null,
  playbackBaseUrl: string,
  country: string | null = null,
) {
  const now = deps.now();
  const { code, event, claims } = await liveSessionOf(deps, token, now, country);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const expiresAt = Math.min(Math.floor(Date.parse(accessEndsAt(event)) / 1000), nowSeconds + LONG_LIVED_URL_MAX_SECONDS);
  try {
    await deps.stores.codes.markSessionLongLived({
      code: code.code,
      sessionId: claims.sid,
      until: new Date(expiresAt * 1000).toISOString(),
      staleBefore: new Date(now.getTime() - deps.config.sessionTimeoutSeconds * 1000).toISOString(),
    });
  } catch (error) {
    if (error instanceof SessionGone || error instanceof AccessRevoked) {
      throw new AccessRefused('refresh', lostSessionReason(error, claims));
    }
    throw error;
  }
  await keepEventDeniedUntil(deps, event, expiresAt);
  const grant = { code: code.code, eventId: event.id, sessionId: claims.sid, expiresAt };
  return {
    playbackUrl: playbackUrlOf(playbackBaseUrl, grant, deps.config.signingKeys),
    expiresAt: new Date(expiresAt * 1000).toISOString(),
    expiresIn: expiresAt - nowSeconds,
  };
}

/**
 * Keeps the session alive: one conditional write, which also adds the player's quality report
 * (`body.qoe`, optional) to the session's totals. The token is checked before the body, so a
 * viewer without a valid token hears 401 whatever it sent. A malformed report is dropped and
 * told to `droppedReports`; the beat still counts (spec: `200 { ok: true }` for a live session).
 */
export async function heartbeat(deps: { stores: { codes: CodeStore }; config: AppConfig; now(): Date; droppedReports?: DroppedReports }, token: string | null, body?: unknown) {
  const now = deps.now();
  const checked = await checkViewerToken(token, deps.config.signingKeys, now, { allowExpired: false });
  if (!checked.ok) throw new AccessRefused('heartbeat', 'invalid-token');
  const { claims } = checked;
  const { report: quality, dropped } = parseQualityReport(body);
  if (dropped) deps.droppedReports?.dropped(claims.sid, dropped);
  try {
    await beatSession(deps, claims, now, quality);
  } catch (error) {
    if (error instanceof SessionGone || error instanceof AccessRevoked) {
      throw new AccessRefused('heartbeat', lostSessionReason(error, claims));
    }
    throw error;
  }
  return { ok: true as const };
}

/** Ends the session at once. An expired but genuine token may still release its own session. */
export async function releasePlayback(deps: { stores: { codes: CodeStore; counters: CounterStore }; config: AppConfig; now(): Date }, token: string | null) {
  const now = deps.now();
  const checked = await checkViewerToken(token, deps.config.signingKeys, now, { allowExpired: true });
  if (!checked.ok) throw new AccessRefused('release', 'invalid-token');
  const { claims } = checked;
  const released = await deps.stores.codes.releaseSession({ code: claims.code, sessionId: claims.sid, now: now.toISOString() });
  // The viewer was counted when this JWT was issued; uncount it there, while that still lies in the window. Only
  // the release that ended the session does: a repeated one, or one after an admin's end, was uncounted already.
  const issuedAt = new Date(claims.iat * 1000);
  if (released && issuedAt.getTime() > now.getTime() - PRESENCE_WINDOW_SECONDS * 1000) await countPresence(deps.stores.counters, claims, issuedAt, -1);
  return { released: true as const };
}

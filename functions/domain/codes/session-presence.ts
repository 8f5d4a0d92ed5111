import type { AppConfig } from '../config';
import type { CounterStore } from '../counter-store';
import { PRESENCE_WINDOW_SECONDS } from '../playback-claims';
import type { QualityReport } from '../playback-quality';
import type { CodeRecord } from '../records';
import type { CodeStore } from './code-store';
import { isLiveSession, sessionsOf } from './session-slots';


/** Best effort, as every counter write (counter-store.ts): it never fails the viewer's request. */
export function countPresence(counters: CounterStore, claims: { eid: string; code: string }, at: Date, delta: number): Promise<void> {
  return counters.countPresence({ eventId: claims.eid, seed: claims.code, at: at.toISOString(), delta });
}

/** What counting a viewer's presence needs (the job worker has no more of the API's configuration). */
export interface PresenceDeps {
  stores: { counters: CounterStore };
  config: Pick<AppConfig, 'sessionTimeoutSeconds'>;
}

/**
 * Takes a live session off the presence estimate (`delta` -1) or puts it back (+1). The delta lands
 * where that viewer was last counted: it claimed at `startedAt` and refreshes once per presence window.
 */
export function countLiveSessionPresence(
  deps: PresenceDeps,
  where: Pick<CodeRecord, 'eventId' | 'code' | 'session'>,
  now: Date,
  delta: number,
): Promise<void> {
  if (!where.session || !sessionIsLive(where, now, deps.config.sessionTimeoutSeconds)) return Promise.resolve();
  const startedAt = Date.parse(where.session.startedAt);
  const period = PRESENCE_WINDOW_SECONDS * 1000;
  const lastCounted = startedAt + Math.floor((now.getTime() - startedAt) / period) * period;
  return countPresence(deps.stores.counters, { eid: where.eventId, code: where.code }, new Date(lastCounted), delta);
}

/** Revoking a code takes its live viewers (every slot's) off the presence estimate (unrevoking puts them back), so a revoked code is never counted. */
export async function countRevocationPresence(deps: PresenceDeps, code: CodeRecord, now: Date): Promise<void> {
  await Promise.all(sessionsOf(code).map(({ session }) => countLiveSessionPresence(deps, { eventId: code.eventId, code: code.code, session }, now, code.isRevoked ? -1 : 1)));
}

/** Whether the code's slot-1 session is live (the other slots: session-slots.ts). */
export function sessionIsLive(code: Pick<CodeRecord, 'session'>, now: Date, timeoutSeconds: number): boolean {
  return !!code.session && isLiveSession(code.session, now, timeoutSeconds);
}

/**
 * One heartbeat of session `sid` on its code (a player's, or the RTMP play check's): the write holds only
 * while that session is the code's live one, not silent past the timeout, and the code not revoked; it
 * throws the store's `SessionGone` or `AccessRevoked` otherwise. `quality` adds a player's report.
 */
export function beatSession(
  deps: { stores: { codes: CodeStore }; config: Pick<AppConfig, 'sessionTimeoutSeconds'> },
  claims: { code: string; sid: string },
  now: Date,
  quality?: QualityReport | null,
): Promise<void> {
  return deps.stores.codes.heartbeat({
    code: claims.code,
    sessionId: claims.sid,
    now: now.toISOString(),
    staleBefore: new Date(now.getTime() - deps.config.sessionTimeoutSeconds * 1000).toISOString(),
    ...(quality === undefined ? {} : { quality }),
  });
}

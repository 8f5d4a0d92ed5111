/**
 * Who is watching an event, and freeing a code: the admin's list of live
 * playback sessions and ending one or all of them. Ending works like the
 * viewer's own release (the code is free again at once, the session's JWT is
 * refused by refresh and, through the revocation feed, by the edge), marked
 * as done by an admin so the player can say so.
 */
import * as z from 'zod';
import { normalizeAccessCode, sessionById, sessionSlotOf } from '../codes';
import { NotFound } from '../errors';
import { countOf, recordAudit, type Actor, type AuditDeps } from '../audit';
import { estimateActiveViewers, requireEvent } from '../events';
import { parseInput } from '../inputs';
import type { LiveSessionRecord } from '../records';
import { summarizeUserAgent } from './user-agent';
import { countLiveSessionPresence } from '../codes';
import type { EventStore } from '../events';
import type { CodeStore } from '../codes';
import type { CounterStore } from '../counter-store';
import type { AppConfig } from '../config';

export const SESSION_PAGE_DEFAULT = 50;
export const SESSION_PAGE_MAX = 200;
/** Sessions ended at once by "End all"; the rest wait for the next press. */
const END_ALL_CONCURRENCY = 16;

const sessionsQuery = z.object({
  cursor: z.string().min(1).max(1024).optional(),
  limit: z.coerce.number().int().min(1).max(SESSION_PAGE_MAX).default(SESSION_PAGE_DEFAULT),
});

export const endSessionInput = z.object({
  code: z.string().min(1).max(64),
  sessionId: z.string().min(1).max(64),
});

const sessionNotFound = () => new NotFound('session');

function liveAfter(deps: { config: AppConfig; now(): Date }): string {
  return new Date(deps.now().getTime() - deps.config.sessionTimeoutSeconds * 1000).toISOString();
}

export function sessionView(record: LiveSessionRecord) {
  return {
    sessionId: record.session.id,
    /** Which of the code's device slots (1 to 5) the session holds. */
    slot: sessionSlotOf(record.session.id),
    tokenId: record.codeId,
    code: record.code,
    label: record.label,
    startedAt: record.session.startedAt,
    lastHeartbeatAt: record.session.heartbeatAt,
    clientIp: record.session.clientIp ?? null,
    userAgent: summarizeUserAgent(record.session.userAgent),
  };
}
export type SessionView = ReturnType<typeof sessionView>;

/**
 * One page of the event's live sessions, newest first. `total` is the presence counters' estimate
 * of the event's viewers (as `stats.activeViewers`), not a count: counting would read every session.
 */
export async function listSessions(deps: { stores: { codes: CodeStore; counters: CounterStore; events: EventStore }; config: AppConfig; now(): Date }, eventId: string, query: Record<string, string>) {
  const { cursor, limit } = parseInput(sessionsQuery, query);
  const event = await requireEvent(deps, eventId);
  const [page, total] = await Promise.all([
    deps.stores.codes.listEventSessions({ eventId, liveAfter: liveAfter(deps), cursor: cursor ?? null, limit }),
    estimateActiveViewers(deps, event, deps.now()),
  ]);
  return { sessions: page.sessions.map(sessionView), total, nextCursor: page.nextCursor };
}

type SessionAdminDeps = { stores: { codes: CodeStore; counters: CounterStore; events: EventStore }; config: AppConfig } & AuditDeps;

/** Ends one session of the event, by `actor`, in the audit log; 404 when it is not (any more) the code's session. */
export async function endSession(deps: SessionAdminDeps, actor: Actor, eventId: string, body: unknown) {
  const input = parseInput(endSessionInput, body);
  const event = await requireEvent(deps, eventId);
  const code = normalizeAccessCode(input.code);
  const record = code ? await deps.stores.codes.getCode(code) : null;
  // One device of the code: its other slots keep watching.
  const session = record && record.eventId === eventId ? sessionById(record, input.sessionId) : null;
  if (!record || !session) throw sessionNotFound();
  const now = deps.now();
  const ended = await deps.stores.codes.releaseSession({ code: record.code, sessionId: input.sessionId, now: now.toISOString(), by: 'admin' });
  if (!ended) throw sessionNotFound();
  await countLiveSessionPresence(deps, { eventId, code: record.code, session }, now, -1);
  await recordAudit(deps, actor, { action: 'session.end', eventId, eventTitle: event.title, target: record.code, details: { sessionId: input.sessionId, label: record.label } });
  return { ended: true as const, sessionId: input.sessionId, code: record.code, label: record.label };
}

/** Ends every live session of the event, by `actor`, in the audit log; `ended` counts those this call ended. */
export async function endAllSessions(deps: SessionAdminDeps, actor: Actor, eventId: string) {
  const event = await requireEvent(deps, eventId);
  const live: LiveSessionRecord[] = [];
  let cursor: string | null = null;
  do {
    const page = await deps.stores.codes.listEventSessions({ eventId, liveAfter: liveAfter(deps), cursor, limit: SESSION_PAGE_MAX });
    live.push(...page.sessions);
    cursor = page.nextCursor;
  } while (cursor);
  let ended = 0;
  const now = deps.now();
  const endOne = async (entry: LiveSessionRecord) => {
    if (!(await deps.stores.codes.releaseSession({ code: entry.code, sessionId: entry.session.id, now: now.toISOString(), by: 'admin' }))) return false;
    await countLiveSessionPresence(deps, { eventId, code: entry.code, session: entry.session }, now, -1);
    return true;
  };
  for (let i = 0; i < live.length; i += END_ALL_CONCURRENCY) {
    const results = await Promise.all(live.slice(i, i + END_ALL_CONCURRENCY).map(endOne));
    ended += results.filter(Boolean).length;
  }
  await recordAudit(deps, actor, { action: 'sessions.end-all', eventId, eventTitle: event.title, target: countOf(ended, 'session'), details: { ended } });
  return { ended };
}

import type { AccessDeps } from './viewer-access';
import { eventStatus } from './event-status';
import { NotFound } from './errors';
import { HttpError } from './http-error';
import { createEventInput, parseInput, updateEventInput } from './inputs';
import { randomId, randomString } from './random';
import type { CodeRecord, EventRecord } from './records';
import type { EventChanges } from './store';
import { adminEventView } from './views';

const INGEST_KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 32 characters of 62 symbols: about 190 bits, never guessed. */
export function newIngestKey(): string {
  return randomString(INGEST_KEY_ALPHABET, 32);
}

export const eventNotFound = () => new HttpError(404, 'Event not found');

/** Maps the store's NotFound to the API's 404. */
export async function orNotFound<T>(work: Promise<T>, notFound: () => HttpError = eventNotFound): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof NotFound) throw notFound();
    throw error;
  }
}

export async function requireEvent(deps: AccessDeps, id: string): Promise<EventRecord> {
  const event = await deps.store.getEvent(id);
  if (!event) throw eventNotFound();
  return event;
}

export async function createEvent(deps: AccessDeps, body: unknown) {
  const input = parseInput(createEventInput, body);
  const now = deps.now().toISOString();
  const event: EventRecord = {
    id: randomId(16),
    ...input,
    isActive: true,
    isArchived: false,
    createdAt: now,
    updatedAt: now,
    activeChangedAt: now,
    tokenCount: 0,
    ingestKey: newIngestKey(),
    liveSince: null,
    lastLiveEndedAt: null,
  };
  await deps.store.createEvent(event);
  return adminEventView(event);
}

export async function updateEvent(deps: AccessDeps, id: string, body: unknown) {
  const changes = parseInput(updateEventInput, body);
  const current = await requireEvent(deps, id);
  const startsAt = changes.startsAt ?? current.startsAt;
  const endsAt = changes.endsAt ?? current.endsAt;
  if (endsAt <= startsAt) throw new HttpError(400, 'endsAt: must be after startsAt');
  const updated = await orNotFound(deps.store.updateEvent(id, changes satisfies EventChanges, deps.now().toISOString()));
  return adminEventView(updated);
}

export async function setEventFlag(deps: AccessDeps, id: string, flag: 'active' | 'archived', value: boolean) {
  const now = deps.now().toISOString();
  const current = await requireEvent(deps, id);
  if (flag === 'active') {
    // Only a real change enters the revocation feed.
    if (current.isActive === value) return adminEventView(current);
    return adminEventView(await orNotFound(deps.store.setEventActive(id, value, now)));
  }
  return adminEventView(await orNotFound(deps.store.updateEvent(id, { isArchived: value }, now)));
}

export async function rotateIngestKey(deps: AccessDeps, id: string, ingestServer: string) {
  const event = await orNotFound(deps.store.updateEvent(id, { ingestKey: newIngestKey() }, deps.now().toISOString()));
  return eventDetails(deps, event, ingestServer);
}

/**
 * Viewers watching now: codes of an active event, not revoked, whose session sent
 * a heartbeat within the session timeout (a revoked code's session cannot watch,
 * even while its heartbeats are still recent).
 */
function countActiveViewers(deps: AccessDeps, event: EventRecord, codes: CodeRecord[], now: Date): number {
  if (!event.isActive) return 0;
  const cutoff = now.getTime() - deps.config.sessionTimeoutSeconds * 1000;
  return codes.filter((code) => !code.isRevoked && code.session && Date.parse(code.session.heartbeatAt) > cutoff).length;
}

/** GET of one event: the admin view plus status, code statistics and the OBS settings. */
export async function eventDetails(deps: AccessDeps, event: EventRecord, ingestServer: string) {
  const now = deps.now();
  const codes = await deps.store.listCodes(event.id);
  return {
    ...adminEventView(event),
    status: eventStatus(event, now),
    stats: {
      tokens: codes.length,
      redeemed: codes.filter((code) => code.redeemedAt).length,
      revoked: codes.filter((code) => code.isRevoked).length,
      activeViewers: countActiveViewers(deps, event, codes, now),
    },
    ingest: { server: ingestServer, streamKey: `${event.id}?token=${event.ingestKey}` },
  };
}

export async function dashboard(deps: AccessDeps) {
  const now = deps.now();
  const events = await deps.store.listEvents();
  const codesByEvent = await Promise.all(events.map((event) => deps.store.listCodes(event.id)));
  const codes = codesByEvent.flat();
  return {
    totalEvents: events.length,
    activeEvents: events.filter((event) => event.isActive && !event.isArchived).length,
    totalTokens: codes.length,
    redeemedTokens: codes.filter((code) => code.redeemedAt).length,
    activeViewers: events.reduce((sum, event, i) => sum + countActiveViewers(deps, event, codesByEvent[i]!, now), 0),
  };
}

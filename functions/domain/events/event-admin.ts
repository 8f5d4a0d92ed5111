import { PRESENCE_WINDOW_SECONDS } from '../playback-claims';
import { accessEndsAt, eventStatus } from '../event-status';
import type { EventCounters } from '../counter-store';
import { LIST_LIMITS } from '../config';
import { HasPaidOrders, InvalidInput, NotFound } from '../errors';
import type { EventChanges } from './event-store';
import { parseInput } from '../inputs';
import { createEventInput, updateEventInput } from './event-inputs';
import { randomId, randomString } from '../random';
import type { EventRecord } from '../records';
import { adminEventView, devicesPerCodeOf } from './event-views';
import { changesOf, recordAudit, type Actor, type AuditDeps } from '../audit';
import { ingestReportView, retireIngestKey } from './stream-reports';
import { backupIngestView, encodersView } from './backup-ingest';
import { backupSrtView, newSrtKeys, srtIngestView } from './srt-settings';
import { onSale, salesView } from './sale';
import type { EventStore } from './event-store';
import type { CounterStore } from '../counter-store';
import type { AppConfig } from '../config';

const INGEST_KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 32 characters of 62 symbols: about 190 bits, never guessed. */
export function newIngestKey(): string {
  return randomString(INGEST_KEY_ALPHABET, 32);
}

/** The backup encoder's RTMP key and SRT stream id token: as strong as the ingest key, rotated with it. */
export function newBackupKeys(): Pick<EventRecord, 'backupIngestKey' | 'backupSrtKey'> {
  return { backupIngestKey: newIngestKey(), backupSrtKey: newIngestKey() };
}

export async function requireEvent(deps: { stores: { events: EventStore } }, id: string): Promise<EventRecord> {
  const event = await deps.stores.events.getEvent(id);
  if (!event) throw new NotFound('event');
  return event;
}

/** The event, unless it has paid, unrefunded orders (from its count): those are cancelled first, which refunds and tells the buyers. */
export function refuseDeletionWithPaidOrders(event: EventRecord): EventRecord {
  if ((event.paidOrders ?? 0) > 0) throw new HasPaidOrders(event.id);
  return event;
}

/** A new event, by `actor`, in the audit log. */
export async function createEvent(deps: { stores: { events: EventStore } } & AuditDeps, actor: Actor, body: unknown) {
  const input = parseInput(createEventInput, body);
  const now = deps.now().toISOString();
  const event: EventRecord = {
    id: randomId(16),
    ...input,
    watermarkSince: input.watermark ? now : null,
    isActive: true,
    isArchived: false,
    createdAt: now,
    updatedAt: now,
    activeChangedAt: now,
    tokenCount: 0,
    ingestKey: newIngestKey(),
    ...newBackupKeys(),
    ...newSrtKeys(),
    lastLiveEndedAt: null,
  };
  await deps.stores.events.createEvent(event);
  await recordAudit(deps, actor, { action: 'event.create', eventId: event.id, eventTitle: event.title, target: event.title });
  return adminEventView(event);
}

/** The fields an admin edits, each recorded with its old and new value when it changed. */
const EDITED_FIELDS = ['title', 'description', 'startsAt', 'endsAt', 'accessWindowHours', 'streamUrl', 'posterUrl', 'sale', 'contactEmail', 'geo', 'devicesPerCode', 'watermark'] as const;

/** `watermarkSince` on the first time watermarking is turned on; never moved or cleared after. */
function watermarkSinceChange(current: EventRecord, input: { watermark?: boolean }, now: string): Pick<EventChanges, 'watermarkSince'> {
  return input.watermark === true && !current.watermarkSince ? { watermarkSince: now } : {};
}

/** The updated event, by `actor`; what changed is in the audit log. */
export async function updateEvent(deps: { stores: { events: EventStore } } & AuditDeps, actor: Actor, id: string, body: unknown) {
  const input = parseInput(updateEventInput, body);
  const current = await requireEvent(deps, id);
  const startsAt = input.startsAt ?? current.startsAt;
  const endsAt = input.endsAt ?? current.endsAt;
  if (endsAt <= startsAt) throw new InvalidInput('endsAt', 'must be after startsAt');
  const now = deps.now().toISOString();
  const changes: EventChanges = { ...input, ...watermarkSinceChange(current, input, now) };
  const updated = await deps.stores.events.updateEvent(id, changes, now);
  const event = adminEventView(updated);
  await recordAudit(deps, actor, { action: 'event.update', eventId: event.id, eventTitle: event.title, target: event.title, changes: changesOf(current, updated, EDITED_FIELDS) });
  return event;
}

/** A new stream key, the old one retired, by `actor`, in the audit log. */
export async function rotateIngestKey(
  deps: { stores: { counters: CounterStore; events: EventStore }; config: AppConfig } & AuditDeps,
  actor: Actor,
  id: string,
  ingestServer: string,
  srtServer?: string,
) {
  const current = await requireEvent(deps, id);
  const changes = { ingestKey: newIngestKey(), ...newSrtKeys(), retiredIngestKeyHashes: retireIngestKey(current), ...newBackupKeys() };
  const event = await deps.stores.events.updateEvent(id, changes, deps.now().toISOString());
  const details = await eventDetails(deps, event, ingestServer, srtServer);
  await recordAudit(deps, actor, { action: 'ingest-key.rotate', eventId: details.id, eventTitle: details.title, target: details.title });
  return details;
}

function eventCounters(deps: { stores: { counters: CounterStore } }, event: EventRecord, now: Date) {
  const presenceSince = new Date(now.getTime() - PRESENCE_WINDOW_SECONDS * 1000).toISOString();
  return deps.stores.counters.eventCounters({ eventId: event.id, presenceSince });
}

/**
 * Active viewers are estimated from the claims and refreshes of the last refresh period (each present viewer makes one per period),
 * never more than the codes' devices could be.
 */
function activeViewersOf(event: EventRecord, counters: EventCounters, now: Date): number {
  const watchable = event.isActive && now.toISOString() < accessEndsAt(event);
  return watchable ? Math.min(counters.presence, event.tokenCount * devicesPerCodeOf(event)) : 0;
}

/** The presence counters' estimate of an event's viewers (the figure of `stats.activeViewers`); never counts sessions. */
export async function estimateActiveViewers(deps: { stores: { counters: CounterStore } }, event: EventRecord, now: Date): Promise<number> {
  return activeViewersOf(event, await eventCounters(deps, event, now), now);
}

/**
 * Code statistics from counters, never from reading every code: the token count is kept on the
 * event, redemptions and revocations in sharded counters, active viewers estimated from presence.
 */
async function codeStats(deps: { stores: { counters: CounterStore } }, event: EventRecord, now: Date) {
  const counters = await eventCounters(deps, event, now);
  return {
    tokens: event.tokenCount,
    redeemed: counters.redeemed,
    revoked: counters.revoked,
    activeViewers: activeViewersOf(event, counters, now),
  };
}

/**
 * GET of one event: the admin view plus status, code statistics, the sales figures, the OBS settings, and its
 * live sessions (for the delete dialog: the presence counters' estimate, as `stats.activeViewers`; never a listing).
 */
export async function eventDetails(deps: { stores: { counters: CounterStore }; config: AppConfig; now(): Date }, event: EventRecord, ingestServer: string, srtServer?: string) {
  const now = deps.now();
  const stats = await codeStats(deps, event, now);
  return {
    ...adminEventView(event),
    status: eventStatus(event, now),
    stats,
    sales: salesView(event, now),
    liveSessions: stats.activeViewers,
    ingest: {
      server: ingestServer,
      streamKey: `${event.id}?token=${event.ingestKey}`,
      // OBS takes whole seconds; a keyframe at least every segment lets the ingest cut segments on time.
      keyframeIntervalSeconds: Math.max(1, Math.floor(deps.config.segmentSeconds)),
      ...ingestReportView(event),
      srt: srtServer ? srtIngestView(event, srtServer) : null,
      backup: backupIngestView(event, (key) => (srtServer ? backupSrtView(event, srtServer, key) : null)),
      encoders: encodersView(event, now),
    },
  };
}

export async function dashboard(deps: { stores: { counters: CounterStore; events: EventStore }; now(): Date }) {
  const now = deps.now();
  const events = await deps.stores.events.listEvents(LIST_LIMITS.events);
  const stats = await Promise.all(events.map((event) => codeStats(deps, event, now)));
  const total = (pick: (s: (typeof stats)[number]) => number) => stats.reduce((sum, s) => sum + pick(s), 0);
  return {
    totalEvents: events.length,
    activeEvents: events.filter((event) => event.isActive && !event.isArchived).length,
    totalTokens: total((s) => s.tokens),
    redeemedTokens: total((s) => s.redeemed),
    activeViewers: total((s) => s.activeViewers),
    /** Each event on sale now, with its sales figures (from its counters). */
    eventsOnSale: events.filter((event) => onSale(event, now)).map((event) => ({ id: event.id, title: event.title, startsAt: event.startsAt, sales: salesView(event, now) })),
  };
}

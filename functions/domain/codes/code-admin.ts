import * as z from 'zod';
import { generateAccessCode, newCodeRecord, normalizeAccessCode } from './access-code';
import { matchesCodeFilter, statusFilter, type CodeFilter } from './code-filter';
import { exportHeader, exportLine } from './code-export';
import { LIST_LIMITS } from '../config';
import { AlreadyExists, ExportTooLarge, InvalidCursor, NotFound } from '../errors';
import { devicesPerCodeOf, requireEvent } from '../events';
import { countOf, recordAudit, type Actor, type AuditDeps } from '../audit';
import { setEventActive } from './event-activation';
import { parseInput } from '../inputs';
import { bulkRevokeInput, codeExportQuery, codeListQuery, generateCodesInput } from './code-inputs';
import { dayInTimeZone } from '../time-zone';
import { randomId } from '../random';
import type { CodeRecord, EventRecord } from '../records';
import { hitRateLimit } from '../rate-limits';
import { changeRevoked, revokeCodes } from './code-revocation';
import { codeView, type CodeView } from './code-views';
import { buyerCodes, type BuyerOrders } from './buyer-codes';
import type { EventStore } from '../events';
import type { CodeStore } from './code-store';
import type { CounterStore } from '../counter-store';
import type { AppConfig } from '../config';

const COLLISION_RETRIES = 5;
const WRITE_CONCURRENCY = 25;

async function createUniqueCode(deps: { stores: { codes: CodeStore } }, event: EventRecord, label: string, createdAt: string): Promise<CodeRecord> {
  for (let attempt = 0; attempt < COLLISION_RETRIES; attempt++) {
    const record = newCodeRecord({ id: randomId(20), code: generateAccessCode(), eventId: event.id, label, createdAt, eventActive: event.isActive });
    try {
      await deps.stores.codes.createCode(record);
      return record;
    } catch (error) {
      if (!(error instanceof AlreadyExists)) throw error;
    }
  }
  throw new Error(`no unique code after ${COLLISION_RETRIES} tries`);
}

/**
 * Creates 1..500 unique codes. On failure the codes already written are removed again, so nothing
 * half-done remains. Each staff account may generate `RATE_LIMITS.generate` times per window; the
 * codes made are in the audit log, by `actor`.
 */
export async function generateCodes(deps: { stores: { codes: CodeStore; counters: CounterStore; events: EventStore } } & AuditDeps, actor: Actor, eventId: string, body: unknown) {
  const { count, label } = parseInput(generateCodesInput, body);
  const event = await requireEvent(deps, eventId);
  const now = deps.now();
  await hitRateLimit(deps.stores.counters, 'generate', actor.name, now);
  const createdAt = now.toISOString();
  const created: CodeRecord[] = [];
  try {
    for (let i = 0; i < count; i += WRITE_CONCURRENCY) {
      const batch = Array.from({ length: Math.min(WRITE_CONCURRENCY, count - i) }, () =>
        createUniqueCode(deps, event, label, createdAt).then((record) => created.push(record)),
      );
      const results = await Promise.allSettled(batch);
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
    }
    await deps.stores.events.addToCodeCount(eventId, created.length);
  } catch (error) {
    await deps.stores.codes.deleteCodes(created.map((record) => record.code));
    throw error;
  }
  const latest = await settleEventActive(deps, event);
  const tokens = created.map((record) => codeView(record, latest, now));
  await recordAudit(deps, actor, {
    action: 'codes.generate',
    eventId,
    eventTitle: latest.title,
    target: countOf(tokens.length, 'code'),
    details: { count: tokens.length, label: tokens[0]?.label ?? '' },
  });
  return { tokens, count: tokens.length };
}

/** An activation change that raced new codes' writes would have missed their copy of the flag: the event as it is now. */
export async function settleEventActive(deps: { stores: { codes: CodeStore; events: EventStore }; now(): Date }, event: EventRecord): Promise<EventRecord> {
  const latest = await requireEvent(deps, event.id);
  if (latest.isActive !== event.isActive) await setEventActive(deps, event.id, latest.isActive);
  return latest;
}

type CodeListQuery = z.infer<typeof codeListQuery>;
interface CodePage {
  tokens: CodeView[];
  nextCursor: string | null;
}
const NO_CODES: CodePage = { tokens: [], nextCursor: null };

/** The query's status and label as a filter on the event's codes; null when none can match. */
function codeFilterOf(query: CodeListQuery, event: EventRecord, now: Date): CodeFilter | null {
  const byStatus = statusFilter(query.status, event, now);
  if (!byStatus) return null;
  return query.label === undefined ? byStatus : { ...byStatus, label: query.label };
}

/** `code`: one lookup of the exact code (in `event` when given), held to the other filters. */
async function exactCode(deps: { stores: { codes: CodeStore; events: EventStore } }, query: CodeListQuery, event: EventRecord | null, now: Date): Promise<CodePage> {
  const value = normalizeAccessCode(query.code);
  const found = value ? await deps.stores.codes.getCode(value) : null;
  if (!found || (event && found.eventId !== event.id)) return NO_CODES;
  const owner = event ?? (await deps.stores.events.getEvent(found.eventId));
  const filter = owner && codeFilterOf(query, owner, now);
  return owner && filter && matchesCodeFilter(found, filter) ? { tokens: [codeView(found, owner, now)], nextCursor: null } : NO_CODES;
}

type CodeListStores = { codes: CodeStore; events: EventStore; orders: BuyerOrders };

/**
 * One page of an event's codes as the admin sees them, newest first (code-store.ts `listCodePage`;
 * with `email`, the codes of that buyer's orders, in one answer).
 */
async function eventCodePage(deps: { stores: CodeListStores }, event: EventRecord, query: CodeListQuery, now: Date): Promise<CodePage> {
  if (query.code !== undefined) return exactCode(deps, query, event, now);
  const filter = codeFilterOf(query, event, now);
  if (!filter) return NO_CODES;
  if (query.email !== undefined) {
    const codes = await buyerCodes(deps.stores, { eventId: event.id, email: query.email, filter, limit: query.limit });
    return { tokens: codes.map((code) => codeView(code, event, now)), nextCursor: null };
  }
  const page = await deps.stores.codes.listCodePage({ eventId: event.id, filter, cursor: query.cursor ?? null, limit: query.limit });
  return { tokens: page.codes.map((code) => codeView(code, event, now)), nextCursor: page.nextCursor };
}

/**
 * An event's codes, a page at a time: `limit` (1..1,000, default 1,000) and `cursor`, filtered by
 * `status`, exact `label` (through the label index) and exact buyer `email` (their orders' codes), or the one exact `code`. Without `limit` an event of up to 1,000 codes
 * answers as the spec's list: all of them, with `nextCursor` null.
 */
export async function listEventCodes(
  deps: { stores: CodeListStores; config: Pick<AppConfig, 'sessionTimeoutSeconds'>; now(): Date },
  eventId: string,
  query: Record<string, string>,
): Promise<CodePage> {
  const parsed = parseInput(codeListQuery, query);
  const event = await requireEvent(deps, eventId);
  return withDevicesInUse(deps, event, await eventCodePage(deps, event, parsed, deps.now()));
}

/**
 * With several devices per code (`devicesPerCode` above 1), each code of the event's page says how many of
 * its slots are in use: one more read of the page's codes. An event of one device per code reads nothing more.
 */
async function withDevicesInUse(
  deps: { stores: { codes: CodeStore }; config: Pick<AppConfig, 'sessionTimeoutSeconds'>; now(): Date },
  event: EventRecord,
  page: CodePage,
): Promise<CodePage> {
  const of = devicesPerCodeOf(event);
  if (of === 1 || page.tokens.length === 0) return page;
  const liveAfter = new Date(deps.now().getTime() - deps.config.sessionTimeoutSeconds * 1000).toISOString();
  const counts = await deps.stores.codes.liveSessionCounts(page.tokens.map((code) => code.code), liveAfter);
  return { ...page, tokens: page.tokens.map((code) => ({ ...code, devices: { inUse: counts.get(code.code) ?? 0, of } })) };
}

/** Where a page across events goes on: the event (by its place in the event list) and the cursor within it ('' from its newest). */
const acrossEventsCursor = z.object({ event: z.string().min(1).max(200), codes: z.string().max(2048) }).strict();
type AcrossEventsPosition = z.infer<typeof acrossEventsCursor>;
const eventOrder = (event: EventRecord) => `${event.createdAt}#${event.id}`;

function decodeAcrossEvents(cursor: string): AcrossEventsPosition {
  try {
    return acrossEventsCursor.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw new InvalidCursor('not a cursor of the codes across events');
  }
}
const encodeAcrossEvents = (position: AcrossEventsPosition) => Buffer.from(JSON.stringify(position)).toString('base64url');

/**
 * Codes across the newest `LIST_LIMITS.events` events (or one, with `eventId`), newest event first and
 * each event's codes newest first, paged as an event's list. A page visits at most
 * `LIST_LIMITS.codePageEvents` events that hold codes, so it costs the same whatever their number.
 */
export async function listAllCodes(deps: { stores: CodeListStores; now(): Date }, query: Record<string, string>): Promise<CodePage> {
  const parsed = parseInput(codeListQuery, query);
  const now = deps.now();
  if (parsed.eventId) return eventCodePage(deps, await requireEvent(deps, parsed.eventId), parsed, now);
  if (parsed.code !== undefined) return exactCode(deps, parsed, null, now);
  const position = parsed.cursor ? decodeAcrossEvents(parsed.cursor) : null;
  const events = await deps.stores.events.listEvents(LIST_LIMITS.events);
  // An event deleted since the cursor was issued: the walk goes on with the next older one, from its newest code.
  let next = position ? events.findIndex((event) => eventOrder(event) <= position.event) : 0;
  let codesCursor = position && next >= 0 && eventOrder(events[next]!) === position.event ? position.codes || undefined : undefined;
  const tokens: CodeView[] = [];
  let visited = 0;
  while (next >= 0 && next < events.length && tokens.length < parsed.limit && visited < LIST_LIMITS.codePageEvents) {
    const event = events[next]!;
    if (event.tokenCount > 0) {
      visited++;
      const page = await eventCodePage(deps, event, { ...parsed, cursor: codesCursor, limit: parsed.limit - tokens.length }, now);
      tokens.push(...page.tokens);
      if (page.nextCursor) return { tokens, nextCursor: encodeAcrossEvents({ event: eventOrder(event), codes: page.nextCursor }) };
    }
    codesCursor = undefined;
    next++;
  }
  const rest = next >= 0 && next < events.length ? events[next]! : null;
  return { tokens, nextCursor: rest ? encodeAcrossEvents({ event: eventOrder(rest), codes: '' }) : null };
}

/**
 * The event's codes as CSV in one answer (code-export.ts), for events of up to `LIST_LIMITS.exportRows` codes
 * (decided from the event's count, before any code is read; larger ones are exported by a job, below). With
 * `tz` (query) the times carry that zone's offset; the file is named after the event's title and the day there.
 */
export async function exportCodesCsv(deps: { stores: { codes: CodeStore; events: EventStore }; now(): Date }, eventId: string, viewerUrl: string, query: Record<string, string>) {
  const { tz } = parseInput(codeExportQuery, query);
  const event = await requireEvent(deps, eventId);
  if (event.tokenCount > LIST_LIMITS.exportRows) throw new ExportTooLarge(`${event.tokenCount} codes`);
  const now = deps.now();
  const format = { viewerUrl, tz: tz ?? null };
  const lines = [exportHeader(), ...(await deps.stores.codes.listCodes(event.id)).map((code) => exportLine(codeView(code, event, now), format))];
  return { csv: lines.map((line) => `${line}\r\n`).join(''), fileName: exportFileName(event.title, dayInTimeZone(now, tz ?? 'UTC')) };
}

/** `<title>-codes-<day>.csv`, the title made safe as a file name on every system (letters and digits of any script kept). */
export function exportFileName(title: string, day: string): string {
  const safe = title
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return `${safe || 'event'}-codes-${day}.csv`;
}

/** Revokes (or restores) one code, by `actor`, in the audit log. */
export async function setCodeRevoked(deps: { stores: { codes: CodeStore; counters: CounterStore; events: EventStore }; config: AppConfig } & AuditDeps, actor: Actor, codeId: string, revoked: boolean) {
  const { code } = await changeRevoked(deps, codeId, revoked, deps.now());
  const event = await deps.stores.events.getEvent(code.eventId);
  if (!event) throw new NotFound('code');
  await recordAudit(deps, actor, { action: revoked ? 'code.revoke' : 'code.unrevoke', eventId: code.eventId, eventTitle: event.title, target: code.code });
  return codeView(code, event, deps.now());
}

/**
 * Revokes every listed code that exists; `revoked` counts those that were not revoked before. They
 * are in the audit log by `actor`, one entry per event, so each event's log shows its own codes.
 */
export async function bulkRevoke(deps: { stores: { codes: CodeStore; counters: CounterStore }; config: AppConfig } & AuditDeps, actor: Actor, body: unknown) {
  const { tokenIds: codeIds } = parseInput(bulkRevokeInput, body);
  const changed = (await revokeCodes(deps, [...new Set(codeIds)], deps.now())).filter((result) => result.changed).map((result) => result.code);
  const byEvent = new Map<string, CodeRecord[]>();
  for (const code of changed) byEvent.set(code.eventId, [...(byEvent.get(code.eventId) ?? []), code]);
  for (const [eventId, codes] of byEvent) {
    await recordAudit(deps, actor, { action: 'codes.bulk-revoke', eventId, target: countOf(codes.length, 'code'), details: { codes: codes.map((code) => code.code) } });
  }
  return { revoked: changed.length };
}

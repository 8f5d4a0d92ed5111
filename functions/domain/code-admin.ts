import { generateAccessCode, newCodeRecord } from './access-code';
import { toCsv } from './csv';
import { LIST_LIMITS } from './config';
import { AlreadyExists, Conflict, NotFound, type ConflictKind } from './errors';
import { requireEvent, setEventActive } from './event-admin';
import { bulkRevokeInput, codeExportQuery, generateCodesInput, generateCodesJobInput, parseInput, codeListQuery } from './inputs';
import type { JobRecord } from './job-store';
import { startJob, type JobStartDeps } from './jobs';
import { dayInTimeZone, isoInTimeZone } from './time-zone';
import { randomId } from './random';
import type { CodeRecord, EventRecord } from './records';
import { hitRateLimit } from './rate-limits';
import { countRevocationPresence, type AccessDeps } from './viewer-access';
import { codeView, type CodeView } from './views';
import { watchLink } from './watch-link';

const COLLISION_RETRIES = 5;
const WRITE_CONCURRENCY = 25;

async function createUniqueCode(deps: AccessDeps, event: EventRecord, label: string, createdAt: string): Promise<CodeRecord> {
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
 * half-done remains. Each staff account may generate `RATE_LIMITS.generate` times per window.
 */
export async function generateCodes(deps: AccessDeps, eventId: string, body: unknown, actor: string) {
  const { count, label } = parseInput(generateCodesInput, body);
  const event = await requireEvent(deps, eventId);
  const now = deps.now();
  await hitRateLimit(deps.stores.counters, 'generate', actor, now);
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
  return { tokens, count: tokens.length };
}

/** An activation change that raced new codes' writes would have missed their copy of the flag: the event as it is now. */
export async function settleEventActive(deps: AccessDeps, event: EventRecord): Promise<EventRecord> {
  const latest = await requireEvent(deps, event.id);
  if (latest.isActive !== event.isActive) await setEventActive(deps, event.id, latest.isActive);
  return latest;
}

/** Starts a background job generating 1..1,000,000 codes (code-generation-job.ts); the worker runs it. */
export async function startCodeGeneration(deps: JobStartDeps, eventId: string, body: unknown, startedBy: JobRecord['startedBy']): Promise<JobRecord> {
  const params = parseInput(generateCodesJobInput, body);
  if (!(await deps.stores.events.getEvent(eventId))) throw new NotFound('event');
  await hitRateLimit(deps.stores.counters, 'generateJob', startedBy.actor, deps.now());
  return startJob(deps, { kind: 'generate-codes', eventId, total: params.count, params, startedBy });
}

function filterByStatus(tokens: CodeView[], status: string | undefined): CodeView[] {
  if (!status) return tokens;
  if (status === 'active') return tokens.filter((token) => token.status !== 'revoked' && token.status !== 'expired');
  return tokens.filter((token) => token.status === status);
}

/** An event's codes as the admin sees them; `most`: the codes one answer may hold (the event's own count says, before any is read). */
async function eventCodeViews(deps: AccessDeps, event: EventRecord, most: number, tooMany: ConflictKind): Promise<CodeView[]> {
  if (event.tokenCount > most) throw new Conflict(tooMany);
  const now = deps.now();
  return (await deps.stores.codes.listCodes(event.id)).map((code) => codeView(code, event, now));
}

export async function listEventCodes(deps: AccessDeps, eventId: string, query: Record<string, string>) {
  const { status } = parseInput(codeListQuery, query);
  const event = await requireEvent(deps, eventId);
  return { tokens: filterByStatus(await eventCodeViews(deps, event, LIST_LIMITS.codes, 'codes-list-too-long'), status) };
}

/** Codes across all events (or one, with `eventId`), filtered by status; at most `LIST_LIMITS.codes` codes are read. */
export async function listAllCodes(deps: AccessDeps, query: Record<string, string>) {
  const { status, eventId } = parseInput(codeListQuery, query);
  const events = eventId ? [await requireEvent(deps, eventId)] : await deps.stores.events.listEvents(LIST_LIMITS.events);
  if (events.reduce((sum, event) => sum + event.tokenCount, 0) > LIST_LIMITS.codes) throw new Conflict('codes-list-too-long');
  const now = deps.now();
  const perEvent = await Promise.all(
    events.map(async (event) => (await deps.stores.codes.listCodes(event.id)).map((code) => codeView(code, event, now))),
  );
  return { tokens: filterByStatus(perEvent.flat(), status) };
}

/**
 * The spec's five columns first and in order, then each code's watch link; at most `LIST_LIMITS.exportRows` rows.
 * With `tz` (query) the times carry that zone's offset (ISO 8601, as the console shows them); the file is named
 * after the event's title and the day of the export there.
 */
export async function exportCodesCsv(deps: AccessDeps, eventId: string, viewerUrl: string, query: Record<string, string>) {
  const { tz } = parseInput(codeExportQuery, query);
  const event = await requireEvent(deps, eventId);
  const tokens = await eventCodeViews(deps, event, LIST_LIMITS.exportRows, 'codes-export-too-long');
  const time = (iso: string) => (tz ? isoInTimeZone(iso, tz) : iso);
  const csv = toCsv(
    ['code', 'label', 'status', 'createdAt', 'expiresAt', 'link'],
    tokens.map((token) => [token.code, token.label, token.status, time(token.createdAt), time(token.expiresAt), watchLink(viewerUrl, token.code)]),
  );
  return { csv, fileName: exportFileName(event.title, dayInTimeZone(deps.now(), tz ?? 'UTC')) };
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

/**
 * Revokes or unrevokes a code; a real change is counted (the event's revoked counter, and its live
 * viewer off or back on the presence estimate). NotFound for an unknown code.
 */
export async function changeRevoked(deps: AccessDeps, codeId: string, revoked: boolean, at: Date) {
  const { code, changed } = await deps.stores.codes.setCodeRevoked(codeId, revoked, at.toISOString());
  if (changed) {
    await deps.stores.counters.countRevocation({ eventId: code.eventId, code: code.code, delta: revoked ? 1 : -1 });
    await countRevocationPresence(deps, code, at);
  }
  return { code, changed };
}

export async function setCodeRevoked(deps: AccessDeps, codeId: string, revoked: boolean) {
  const { code } = await changeRevoked(deps, codeId, revoked, deps.now());
  const event = await deps.stores.events.getEvent(code.eventId);
  if (!event) throw new NotFound('code');
  return codeView(code, event, deps.now());
}

/**
 * Revokes every listed code that exists; `revoked` counts those that were
 * not revoked before, `changed` lists them (for the audit log).
 */
export async function bulkRevoke(deps: AccessDeps, body: unknown) {
  const { tokenIds: codeIds } = parseInput(bulkRevokeInput, body);
  const at = deps.now();
  const changed: CodeRecord[] = [];
  const unique = [...new Set(codeIds)];
  for (let i = 0; i < unique.length; i += WRITE_CONCURRENCY) {
    await Promise.all(
      unique.slice(i, i + WRITE_CONCURRENCY).map(async (id) => {
        try {
          const result = await changeRevoked(deps, id, true, at);
          if (result.changed) changed.push(result.code);
        } catch (error) {
          if (!(error instanceof NotFound)) throw error;
        }
      }),
    );
  }
  return { revoked: changed.length, changed };
}

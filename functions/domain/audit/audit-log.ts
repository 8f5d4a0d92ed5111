/**
 * The admin audit log: every admin action that changes something, and what the RTMP ingest
 * reports of a publish, with time, action, actor, target, what changed and client address.
 * Entries are kept for `AUDIT_RETENTION_DAYS` whatever becomes of their event: an event's own
 * log is on its page while it exists, every entry in the console-wide log.
 */
import * as z from 'zod';
import { AUDIT_ACTIONS, CODE_TARGET_ACTIONS, defaultAuditTarget, type AuditAction } from './audit-actions';
import type { AuditChange, AuditEntry, AuditPage, AuditScope, AuditStore } from './audit-store';
import { parseInput } from '../inputs';
import { randomId } from '../random';

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;
/** How long an entry is kept (then DynamoDB's TTL collects it): a season and then some, whatever became of its event. */
export const AUDIT_RETENTION_DAYS = 400;

const auditQuery = z.object({
  action: z.enum(AUDIT_ACTIONS).optional(),
  cursor: z.string().min(1).max(2048).optional(),
  limit: z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX).default(AUDIT_PAGE_DEFAULT),
});

export interface AuditDeps {
  /** The events port as far as the log reads it: an entry names its event's title. */
  stores: { audit: AuditStore; events: { getEvent(id: string): Promise<{ title: string } | null> } };
  now(): Date;
}

/**
 * Who acts: a staff member (their username), the ingest (`INGEST_ACTOR`), the shop or Stripe that
 * reported an order, or whoever a failed sign-in names; with the client address the entry keeps.
 */
export interface Actor {
  name: string;
  clientIp: string;
}

/**
 * One action to record; without `eventId` it concerns no event, without `target` it names
 * `defaultAuditTarget`'s. The event's title is read unless given (an event being deleted gives it).
 */
export interface AuditRecord {
  action: AuditAction;
  eventId?: string | null;
  eventTitle?: string;
  target?: string;
  changes?: Record<string, AuditChange>;
  details?: Record<string, unknown>;
}

/** The fields of `after` whose value differs from `before`'s, as changes (empty when nothing changed). */
export function changesOf<T extends object>(before: T, after: T, fields: readonly (keyof T & string)[]): Record<string, AuditChange> {
  const changes: Record<string, AuditChange> = {};
  for (const field of fields) {
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) changes[field] = { from: before[field] ?? null, to: after[field] ?? null };
  }
  return changes;
}

/**
 * Records one action by `actor` in its event's log (or the console-wide one): the one way a use case
 * writes the audit log. `key` fixes the entry's id and time, for an entry that may be written twice
 * (it then replaces itself).
 */
export async function recordAudit(
  deps: AuditDeps,
  actor: Actor,
  record: AuditRecord,
  key: Pick<AuditEntry, 'id' | 'at'> = { id: randomId(20), at: deps.now().toISOString() },
): Promise<AuditEntry> {
  const { action, eventId = null, target, changes, details } = record;
  const eventTitle = eventId === null ? null : (record.eventTitle ?? (await deps.stores.events.getEvent(eventId))?.title ?? null);
  const entry: AuditEntry = {
    ...key,
    action,
    actor: actor.name,
    eventId,
    eventTitle,
    target: target ?? defaultAuditTarget(action, actor.name),
    clientIp: actor.clientIp,
    ...(changes && Object.keys(changes).length > 0 ? { changes } : {}),
    ...(details ? { details } : {}),
  };
  const scope: AuditScope = entry.eventId ? { eventId: entry.eventId } : 'console';
  const keepUntil = new Date(Date.parse(entry.at) + AUDIT_RETENTION_DAYS * 86_400_000).toISOString();
  await deps.stores.audit.putAuditEntry(entry, scope, keepUntil);
  return entry;
}

/** `count` things in words, as an entry's target names them: "1 code", "12 codes". */
export const countOf = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** What a reader may see of an access code: its last 4 characters (enough to tell tickets apart, never to watch). */
export const maskCode = (code: string) => `…${code.slice(-4)}`;

/**
 * An entry as a reader sees it: one stored entry serves every role, and a role that may not read
 * codes (`codes:read`) sees the codes it names masked.
 */
export function auditEntryView(entry: AuditEntry, reader: { readsCodes: boolean }): AuditEntry {
  if (reader.readsCodes) return entry;
  const codes = entry.details?.codes;
  return {
    ...entry,
    target: CODE_TARGET_ACTIONS.has(entry.action) ? maskCode(entry.target) : entry.target,
    ...(Array.isArray(codes) ? { details: { ...entry.details, codes: codes.map((code) => maskCode(String(code))) } } : {}),
  };
}

/** Newest first; `eventId` for one event's log, else every entry (console-wide and all events'). InvalidCursor for a forged cursor. */
export async function listAudit(deps: AuditDeps, eventId: string | null, query: Record<string, string>, reader: { readsCodes: boolean }): Promise<AuditPage> {
  const { action, cursor, limit } = parseInput(auditQuery, query);
  const page = await deps.stores.audit.listAuditEntries({ eventId, action: action ?? null, cursor: cursor ?? null, limit });
  return { entries: page.entries.map((entry) => auditEntryView(entry, reader)), nextCursor: page.nextCursor };
}

/**
 * The admin audit log: every admin action that changes something, with time,
 * action, acting account, target and client address. Entries of an event live
 * as long as the event and are deleted with it; sign-ins, sign-outs, account
 * changes and event deletions are kept in the console-wide log.
 */
import * as z from 'zod';
import { AUDIT_ACTIONS, defaultAuditTarget, type AuditAction } from './audit-actions';
import type { AuditEntry, AuditPage, AuditScope, AuditStore } from './audit-store';
import { parseInput } from './inputs';
import { randomId } from './random';

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

const auditQuery = z.object({
  action: z.enum(AUDIT_ACTIONS).optional(),
  cursor: z.string().min(1).max(2048).optional(),
  limit: z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX).default(AUDIT_PAGE_DEFAULT),
});

export interface AuditDeps {
  stores: { audit: AuditStore };
  now(): Date;
}

/** One action to record; without `eventId` it concerns no event, without `target` it names `defaultAuditTarget`'s. */
export interface AuditRecord {
  action: AuditAction;
  actor: string;
  eventId?: string | null;
  target?: string;
  clientIp: string;
  details?: Record<string, unknown>;
}

/** Records one action. Event deletions go to the console-wide log: the event's own log goes with the event. */
export async function recordAudit(deps: AuditDeps, record: AuditRecord): Promise<AuditEntry> {
  const { action, actor, eventId = null, target, clientIp, details } = record;
  const entry: AuditEntry = {
    id: randomId(20),
    at: deps.now().toISOString(),
    action,
    actor,
    eventId,
    target: target ?? defaultAuditTarget(action, actor),
    clientIp,
    ...(details ? { details } : {}),
  };
  const scope: AuditScope = entry.eventId && entry.action !== 'event.delete' ? { eventId: entry.eventId } : 'console';
  await deps.stores.audit.putAuditEntry(entry, scope);
  return entry;
}

/** Newest first; `eventId` for one event's log, else every entry (console-wide and all events'). InvalidCursor for a forged cursor. */
export function listAudit(deps: AuditDeps, eventId: string | null, query: Record<string, string>): Promise<AuditPage> {
  const { action, cursor, limit } = parseInput(auditQuery, query);
  return deps.stores.audit.listAuditEntries({ eventId, action: action ?? null, cursor: cursor ?? null, limit });
}

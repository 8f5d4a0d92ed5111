/**
 * The admin audit log: every admin action that changes something, with time,
 * action, acting account, target and client address. Entries of an event live
 * as long as the event and are deleted with it; sign-ins, sign-outs, account
 * changes and event deletions are kept in the console-wide log.
 */
import * as z from 'zod';
import { InvalidCursor, InvalidInput } from './errors';
import { parseInput } from './inputs';
import { randomId } from './random';
import type { Store } from './store';

export const AUDIT_ACTIONS = [
  'admin.login',
  'admin.login-failed',
  'admin.logout',
  'account.create',
  'account.update',
  'account.password-change',
  'account.password-reset',
  'account.two-factor-enable',
  'account.two-factor-reset',
  'account.policy-change',
  'event.create',
  'event.update',
  'event.activate',
  'event.deactivate',
  'event.archive',
  'event.unarchive',
  'event.delete',
  'codes.generate',
  'code.revoke',
  'code.unrevoke',
  'codes.bulk-revoke',
  'session.end',
  'sessions.end-all',
  'ingest-key.rotate',
  'cache.clear',
  'job.start',
  'job.end',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  id: string;
  /** ISO 8601 UTC. */
  at: string;
  action: AuditAction;
  /** The staff account that acted (for a failed sign-in: the login name tried). */
  actor: string;
  /** The event the action concerns, or null for sign-ins and account changes. */
  eventId: string | null;
  /** What was acted on, in words an admin recognises: an event title, a code, "12 codes". */
  target: string;
  clientIp: string;
  /** Small facts worth keeping (a label, a count, the codes of a bulk revoke). */
  details?: Record<string, unknown>;
}

/** Where an entry is kept: with its event (deleted with it), or in the console-wide log. */
export type AuditScope = { eventId: string } | 'console';

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass back as `cursor` for the next (older) page; null at the end. */
  nextCursor: string | null;
}

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

const auditQuery = z.object({
  action: z.enum(AUDIT_ACTIONS).optional(),
  cursor: z.string().min(1).max(2048).optional(),
  limit: z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX).default(AUDIT_PAGE_DEFAULT),
});

export interface AuditDeps {
  store: Store;
  now(): Date;
}

/**
 * Records one action. Event deletions go to the console-wide log: the event's own log goes with the event.
 * `key` fixes the entry's id and time, for an entry that may be written twice (it then replaces itself).
 */
export async function recordAudit(
  deps: AuditDeps,
  entry: Omit<AuditEntry, 'id' | 'at'>,
  key: Pick<AuditEntry, 'id' | 'at'> = { id: randomId(20), at: deps.now().toISOString() },
): Promise<AuditEntry> {
  const full: AuditEntry = { ...key, ...entry };
  const scope: AuditScope = entry.eventId && entry.action !== 'event.delete' ? { eventId: entry.eventId } : 'console';
  await deps.store.putAuditEntry(full, scope);
  return full;
}

/** Newest first; `eventId` for one event's log, else every entry (console-wide and all events'). */
export async function listAudit(deps: AuditDeps, eventId: string | null, query: Record<string, string>): Promise<AuditPage> {
  const { action, cursor, limit } = parseInput(auditQuery, query);
  try {
    return await deps.store.listAuditEntries({ eventId, action: action ?? null, cursor: cursor ?? null, limit });
  } catch (error) {
    if (error instanceof InvalidCursor) throw new InvalidInput('cursor', 'is invalid');
    throw error;
  }
}

import type { AuditAction } from './audit-actions';

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

/** The audit port: the log's entries, per event and console-wide. */
export interface AuditStore {
  /** Keeps an audit entry in its scope's log (an event's, or the console-wide one). */
  putAuditEntry(entry: AuditEntry, scope: AuditScope): Promise<void>;
  /** Newest first: one event's log, or (eventId null) every entry. InvalidCursor for a cursor it did not issue. */
  listAuditEntries(args: { eventId: string | null; action: AuditAction | null; cursor: string | null; limit: number }): Promise<AuditPage>;
  /** Removes an event's log (with the event). */
  deleteAuditEntries(eventId: string): Promise<void>;
}

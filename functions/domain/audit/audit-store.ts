import type { AuditAction } from './audit-actions';

/** One field an action changed: its value before and after. */
export interface AuditChange {
  from: unknown;
  to: unknown;
}

export interface AuditEntry {
  id: string;
  /** ISO 8601 UTC. */
  at: string;
  action: AuditAction;
  /**
   * The staff account that acted; `ingest` for what the RTMP ingest reported; for a failed
   * sign-in, the account the name belongs to, or `unknown account` (never the text typed).
   */
  actor: string;
  /** The event the action concerns, or null for sign-ins and account changes. */
  eventId: string | null;
  /** The event's title when the entry was written (absent on entries from before titles were kept). */
  eventTitle?: string | null;
  /** What was acted on, in words an admin recognises: an event title, a code, "12 codes". */
  target: string;
  clientIp: string;
  /** What the action changed, field by field (a role, an event's start, the sign-in policy). */
  changes?: Record<string, AuditChange>;
  /** Small facts worth keeping (a label, a count, the codes of a bulk revoke). */
  details?: Record<string, unknown>;
}

/** Where an entry is kept: with its event (listed on the event's page), or in the console-wide log. */
export type AuditScope = { eventId: string } | 'console';

export interface AuditPage {
  entries: AuditEntry[];
  /** Pass back as `cursor` for the next (older) page; null at the end. */
  nextCursor: string | null;
}

/** The audit port: the log's entries, per event and console-wide. */
export interface AuditStore {
  /**
   * Keeps an audit entry in its scope's log (an event's, or the console-wide one) until `keepUntil`
   * (then it may be collected); an event's entries outlive the event.
   */
  putAuditEntry(entry: AuditEntry, scope: AuditScope, keepUntil: string): Promise<void>;
  /** Newest first: one event's log, or (eventId null) every entry. InvalidCursor for a cursor it did not issue. */
  listAuditEntries(args: { eventId: string | null; action: AuditAction | null; cursor: string | null; limit: number }): Promise<AuditPage>;
}

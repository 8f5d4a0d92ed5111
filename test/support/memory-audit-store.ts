import type { AuditAction } from '../../functions/domain/audit';
import type { AuditEntry, AuditPage, AuditScope, AuditStore } from '../../functions/domain/audit';
import { copy } from './memory-records';
import { decodeCursor, encodeCursor } from './memory-cursor';

const auditOrder = (entry: AuditEntry) => `${entry.at}#${entry.id}`;

/** The audit port in memory (memory-stores.ts). */
export class MemoryAuditStore implements AuditStore {
  private readonly audit: { entry: AuditEntry; scope: string }[] = [];

  /** An entry with the same scope, time and id replaces the one there, as a put of the same key does in DynamoDB. */
  async putAuditEntry(entry: AuditEntry, scope: AuditScope): Promise<void> {
    const stored = { entry: copy(entry), scope: scope === 'console' ? 'console' : scope.eventId };
    const same = this.audit.findIndex((other) => other.scope === stored.scope && auditOrder(other.entry) === auditOrder(entry));
    if (same >= 0) this.audit[same] = stored;
    else this.audit.push(stored);
  }

  /** The cursor names its listing and the last entry shown (`at#id`). */
  async listAuditEntries(args: { eventId: string | null; action: AuditAction | null; cursor: string | null; limit: number }): Promise<AuditPage> {
    const listing = args.eventId ?? '*';
    const after = args.cursor
      ? decodeCursor<{ listing: string; last: string }>(args.cursor, (value) => value.listing === listing && typeof value.last === 'string').last
      : null;
    const rest = this.audit
      .filter(({ scope, entry }) => (args.eventId === null || scope === args.eventId) && (!args.action || entry.action === args.action))
      .map(({ entry }) => entry)
      .sort((a, b) => auditOrder(b).localeCompare(auditOrder(a)))
      .filter((entry) => after === null || auditOrder(entry) < after);
    const entries = rest.slice(0, args.limit);
    const last = entries[entries.length - 1];
    return { entries: entries.map(copy), nextCursor: rest.length > args.limit && last ? encodeCursor({ listing, last: auditOrder(last) }) : null };
  }
}

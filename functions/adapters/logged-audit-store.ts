import type { AuditStore } from '../domain/audit';
import { logger } from './telemetry';

/**
 * The audit port that also writes each entry as a structured log line (CloudWatch in AWS), first,
 * so that the line stays even when the store's write fails.
 */
export function loggedAuditStore(store: AuditStore): AuditStore {
  return {
    async putAuditEntry(entry, scope, keepUntil) {
      logger.info('audit', { ...entry });
      await store.putAuditEntry(entry, scope, keepUntil);
    },
    listAuditEntries: (args) => store.listAuditEntries(args),
  };
}

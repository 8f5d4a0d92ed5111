import { recordAudit, type AuditRecord } from '../domain/audit';
import type { ApiEvent } from './api-types';
import type { App } from './app';
import { logger } from '../adapters/telemetry';
import { clientIp } from './request-info';

/**
 * Records an admin action in the audit log (functions/domain/audit/audit-log.ts) with the request's
 * client address, and as a structured log line (CloudWatch in AWS), written first so that it
 * stays even when the log's store write fails.
 */
export async function auditRequest(app: App, event: ApiEvent, record: Omit<AuditRecord, 'clientIp'>): Promise<void> {
  const entry = { ...record, clientIp: clientIp(event, app.config.originVerifySecret) };
  logger.info('audit', { ...entry, at: app.now().toISOString() });
  await recordAudit(app, entry);
}

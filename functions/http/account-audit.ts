import type { ApiEvent } from './api-types';
import type { App } from './app';
import { logger } from './logger';
import { clientIp } from './request-info';

export type AccountAuditAction =
  | 'sign-in'
  | 'sign-in-failed'
  | 'sign-out'
  | 'two-factor-enabled'
  | 'password-changed'
  | 'account-created'
  | 'account-changed'
  | 'password-reset'
  | 'two-factor-reset'
  | 'policy-changed';

export interface AccountAuditEntry {
  /** The account that acted (for sign-ins: the name tried). */
  actor: string;
  action: AccountAuditAction;
  /** The account acted on, when not the actor. */
  target?: string;
  detail?: Record<string, unknown>;
}

/**
 * Records sign-ins and account changes with the account name. For now a
 * structured log line (CloudWatch in AWS); this is the one place to hand the
 * entry to the console's audit log as well.
 */
export async function auditAccount(app: App, event: ApiEvent, entry: AccountAuditEntry): Promise<void> {
  logger.info('account audit', { ...entry, ip: clientIp(event, app.config.originVerifySecret), at: app.now().toISOString() });
}

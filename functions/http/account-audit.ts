import { recordAudit, type AuditAction } from '../domain/audit-log';
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

const CONSOLE_ACTIONS: Record<AccountAuditAction, AuditAction> = {
  'sign-in': 'admin.login',
  'sign-in-failed': 'admin.login-failed',
  'sign-out': 'admin.logout',
  'two-factor-enabled': 'account.two-factor-enable',
  'password-changed': 'account.password-change',
  'account-created': 'account.create',
  'account-changed': 'account.update',
  'password-reset': 'account.password-reset',
  'two-factor-reset': 'account.two-factor-reset',
  'policy-changed': 'account.policy-change',
};

const SIGN_IN_ACTIONS: ReadonlySet<AccountAuditAction> = new Set(['sign-in', 'sign-in-failed', 'sign-out']);

/**
 * Records sign-ins and account changes with the account name: a structured log
 * line (CloudWatch in AWS) and an entry in the console-wide audit log.
 */
export async function auditAccount(app: App, event: ApiEvent, entry: AccountAuditEntry): Promise<void> {
  const ip = clientIp(event, app.config.originVerifySecret);
  logger.info('account audit', { ...entry, ip, at: app.now().toISOString() });
  await recordAudit(app, {
    action: CONSOLE_ACTIONS[entry.action],
    actor: entry.actor,
    eventId: null,
    // Sign-ins act on the console itself; an account change without a target is the actor's own.
    target: entry.target ?? (SIGN_IN_ACTIONS.has(entry.action) ? 'Admin console' : entry.actor),
    clientIp: ip,
    ...(entry.detail ? { details: entry.detail } : {}),
  });
}

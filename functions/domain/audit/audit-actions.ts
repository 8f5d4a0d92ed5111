/**
 * The one vocabulary of the admin audit log: every action an admin (or a
 * sign-in attempt, or the RTMP ingest) records, events', codes', accounts' and
 * streams' alike. The HTTP layer, the store and the console's labels all use these names.
 */
export const AUDIT_ACTIONS = [
  'admin.login',
  'admin.login-failed',
  'admin.logout',
  'account.create',
  'account.update',
  'account.password-change',
  'account.password-reset',
  'account.unlock',
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
  'event.cancel',
  'codes.generate',
  'code.revoke',
  'code.unrevoke',
  'codes.bulk-revoke',
  'session.end',
  'sessions.end-all',
  'ingest-key.rotate',
  'cache.clear',
  /** Signed URLs of a watermarked recording's A and B segments or fingerprints, handed to the tracer. */
  'watermark.files',
  /** A leaked copy's bits scored against every session of the event (the result and the number of bits). */
  'watermark.trace',
  'job.start',
  'job.done',
  'job.failed',
  'job.retry',
  /** Either end of a job, in entries written before `job.done` and `job.failed` told them apart; none is written now. */
  'job.end',
  'stream.start',
  'stream.stop',
  'stream.takeover',
  /** Another encoder went on air (the backup after the primary failed, or back), by the ingest. */
  'stream.failover',
  /** An operator asked for the other encoder on air. */
  'stream.switch',
  'stream.refused',
  'order.paid',
  'order.refunded',
  'order.failed',
  'order.resend',
  'order.refund-requested',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The actor of a failed sign-in whose name belongs to no account: what was typed is never recorded (it may be a password). */
export const UNKNOWN_ACCOUNT = 'unknown account';

/** The actor of what the RTMP ingest reports: a publish started, stopped, refused, or taken over from a dead ingest. */
export const INGEST_ACTOR = 'ingest';

/** Actions whose target is an access code: shown masked to readers whose role may not read codes. */
export const CODE_TARGET_ACTIONS: ReadonlySet<AuditAction> = new Set(['code.revoke', 'code.unrevoke', 'session.end']);

/** Sign-ins and sign-outs act on the console itself: that is their target. */
const CONSOLE_ACTIONS: ReadonlySet<AuditAction> = new Set(['admin.login', 'admin.login-failed', 'admin.logout']);

/** What an entry names as acted on when the caller names nothing: the console, or the acting account itself. */
export function defaultAuditTarget(action: AuditAction, actor: string): string {
  return CONSOLE_ACTIONS.has(action) ? 'Admin console' : actor;
}

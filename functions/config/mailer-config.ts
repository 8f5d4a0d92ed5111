import * as z from 'zod';
import { isTimeZone } from '../domain/time-zone';
import { TICKET_MAIL_RETRIES } from '../domain/commerce';
import { parseEnvironment, variable, type Environment } from './env';

/**
 * What runs the mailer, in AWS (infra/lib/constructs/mailer.ts: the table stream's event source
 * mapping, filtered to orders that owe an email) and in `npm start` (local/mailer-triggers.ts) alike.
 */
export const MAILER_TRIGGERS = {
  stream: {
    keyPrefixes: ['ORDER#'],
    /** Only a write that leaves an email owed wakes the mailer. */
    emailStatus: 'pending',
    batchSize: 10,
    /** A batch whose handler fails (the table unreachable) is retried, then goes to the failure destination. */
    retryAttempts: 3,
  },
  /** Sends of one email before it is recorded `failed`, and the waits before the second and third try (the domain's rule). */
  ...TICKET_MAIL_RETRIES,
} as const;

/** How the mailer sends: Amazon SES (AWS), or any SMTP server by URL. */
export type MailTransportConfig = { kind: 'ses' } | { kind: 'smtp'; url: string };

/** The mailer's configuration, read once per process. */
export interface MailerConfig {
  tableName: string;
  /** The viewer page: watch links are `<site>/?code=<code>`. */
  siteUrl: string;
  /**
   * The sender (`MAIL_FROM`, e.g. `Stagedoor <tickets@example.com>`); in AWS the stack parameter
   * `TicketEmailSender`, an address SES has verified. Null: none set yet, and every email is recorded
   * `failed` with that reason (the console shows it; a resend tries again once it is set).
   */
  from: string | null;
  /** The zone the email writes the start time in, with its offset (`MAIL_TIME_ZONE`, default UTC). */
  timeZone: string;
  transport: MailTransportConfig;
}

const timeZone = z
  .string()
  .optional()
  .transform((value, context) => {
    if (!value) return 'UTC';
    if (isTimeZone(value)) return value;
    context.addIssue({ code: 'custom', message: `must be an IANA time zone such as Europe/Berlin, got "${value}"` });
    return z.NEVER;
  });

const smtpUrl = z
  .string()
  .optional()
  .transform((value, context) => {
    if (!value) return null;
    if (URL.canParse(value) && /^smtps?:$/.test(new URL(value).protocol)) return value;
    context.addIssue({ code: 'custom', message: 'must be an smtp:// or smtps:// URL' });
    return z.NEVER;
  });

const settings = {
  TABLE_NAME: variable.required(),
  SITE_ORIGIN: variable.required().pipe(z.url({ error: 'must be a URL' })),
  MAIL_FROM: variable.optional(),
  MAIL_TIME_ZONE: timeZone,
  SMTP_URL: smtpUrl,
};

/**
 * Reads the mailer's environment (infra/lib/constructs/mailer.ts, or local/start.ts's record). Without
 * `SMTP_URL` it sends through SES. Throws one error naming each variable missing or malformed.
 */
export function readMailerConfig(env: Environment = process.env): MailerConfig {
  const found = parseEnvironment(settings, env);
  return {
    tableName: found.TABLE_NAME,
    siteUrl: found.SITE_ORIGIN.replace(/\/+$/, ''),
    from: found.MAIL_FROM,
    timeZone: found.MAIL_TIME_ZONE,
    transport: found.SMTP_URL ? { kind: 'smtp', url: found.SMTP_URL } : { kind: 'ses' },
  };
}

import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import nodemailer from 'nodemailer';
import type { MailTransportConfig } from '../config/mailer-config';
import type { MailMessage } from '../domain/commerce';

/** Why nothing can be sent: the one setting a deployment must make. */
export const NO_SENDER = 'no sender address: set the stack parameter TicketEmailSender (MAIL_FROM) to an address verified in SES';

/** Sends one email; rejects when the server refused it or could not be reached. */
export interface MailTransport {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * nodemailer over SES (its SES transport on the SESv2 client: the function's role and region) or
 * over SMTP (`SMTP_URL`, any server: the local catcher, a provider's relay). `from` is `MAIL_FROM`.
 */
export function mailTransport(config: MailTransportConfig, from: string | null): MailTransport {
  const transporter =
    config.kind === 'ses'
      ? nodemailer.createTransport({ SES: { sesClient: new SESv2Client({ maxAttempts: 3 }), SendEmailCommand } })
      : // A slow or silent server fails the attempt instead of holding the function to its timeout.
        nodemailer.createTransport({ url: config.url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
  return {
    async send(message) {
      if (!from) throw new Error(NO_SENDER);
      await transporter.sendMail({ from, ...message });
    },
    close: () => transporter.close(),
  };
}

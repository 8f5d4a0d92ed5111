import { mailTransport } from '../functions/adapters/mail-transport';
import { MAILER_TRIGGERS, type MailerConfig } from '../functions/config/mailer-config';
import type { Stores } from '../functions/compose/stores';
import { createMailerHandler, orderOwingEmail } from '../functions/handlers/mailer';
import { startStreamTrigger } from './stream-trigger';
import type { TableStream } from './table-stream';

/**
 * The mailer locally, as AWS runs it (infra/lib/constructs/mailer.ts): the same handler on the
 * embedded table's stream, given the records MAILER_TRIGGERS's filter lets through, in the mapping's
 * batches and retries, sending with the configured transport (the local catcher's SMTP by default).
 */
export function startMailer(options: { stream: TableStream; stores: Pick<Stores, 'orders' | 'events'>; config: MailerConfig; log?: (line: string) => void }) {
  const log = options.log ?? ((line: string) => process.stderr.write(`mailer: ${line}\n`));
  const transport = mailTransport(options.config.transport, options.config.from);
  const handler = createMailerHandler({
    orders: options.stores.orders,
    events: options.stores.events,
    transport,
    context: { siteUrl: options.config.siteUrl, timeZone: options.config.timeZone },
  });
  const trigger = startStreamTrigger({
    stream: options.stream,
    settings: MAILER_TRIGGERS.stream,
    accepts: (record) => orderOwingEmail(record) !== null,
    handler,
    // In AWS the batch goes to the failure destination; the orders keep their email pending, and a resend sends it.
    log,
  });
  return {
    async stop() {
      await trigger.stop();
      transport.close();
    },
  };
}

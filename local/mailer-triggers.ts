import { TRIGGERS } from '../infra/lib/triggers';
import type { compose } from '../functions/compose/mailer';
import { startStreamTrigger } from './triggers/stream-trigger';
import type { TableStream } from './table-stream';

/**
 * The mailer locally, as AWS runs it (infra/lib/constructs/mailer.ts): the composed handler
 * (functions/compose/mailer.ts) on the embedded table's stream, given the records its trigger's
 * filter lets through (infra/lib/triggers.ts), in the mapping's batches and retries, sending with the configured transport
 * (the local catcher's SMTP by default).
 */
export function startMailer(options: { stream: TableStream; mailer: ReturnType<typeof compose>; log?: (line: string) => void }) {
  const log = options.log ?? ((line: string) => process.stderr.write(`mailer: ${line}\n`));
  const trigger = startStreamTrigger({
    stream: options.stream,
    settings: TRIGGERS.mailer.stream,
    handler: options.mailer,
    // In AWS the batch goes to the failure destination; the orders keep their email pending, and a resend sends it.
    log,
  });
  return {
    async stop() {
      await trigger.stop();
      options.mailer.close();
    },
  };
}

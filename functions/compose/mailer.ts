import type { AwsClients } from '../adapters/aws-clients';
import { DynamoEventStore } from '../adapters/dynamo-event-store';
import { DynamoOrderStore } from '../adapters/dynamo-order-store';
import { dynamoTable } from '../adapters/dynamo-table';
import { mailTransport } from '../adapters/mail-transport';
import type { MailerConfig } from '../config/mailer-config';
import { createMailerHandler } from '../triggers/mailer';

/** The mailer function (triggers/mailer.ts) on the table's stream; `close` ends its transport's connections. */
export function compose(config: MailerConfig, clients: Pick<AwsClients, 'dynamo'>): ReturnType<typeof createMailerHandler> & { close(): void } {
  const table = dynamoTable(clients.dynamo, config.tableName);
  const transport = mailTransport(config.transport, config.from);
  const mailer = createMailerHandler({
    orders: new DynamoOrderStore(table),
    events: new DynamoEventStore(table),
    transport,
    context: { siteUrl: config.siteUrl, timeZone: config.timeZone },
  });
  return Object.assign(mailer, { close: () => transport.close() });
}

import type { AwsClients } from '../adapters/aws-clients';
import { DynamoAudienceStore } from '../adapters/dynamo-audience-store';
import { DynamoEventStore } from '../adapters/dynamo-event-store';
import { dynamoTable } from '../adapters/dynamo-table';
import type { AudienceConfig } from '../config/audience-config';
import { createAudienceRecorderHandler } from '../triggers/audience-recorder';

/** The audience recorder function (triggers/audience-recorder.ts) on the table's stream. */
export function compose(config: AudienceConfig, clients: Pick<AwsClients, 'dynamo'>): ReturnType<typeof createAudienceRecorderHandler> {
  const table = dynamoTable(clients.dynamo, config.tableName);
  return createAudienceRecorderHandler({
    stores: { audience: new DynamoAudienceStore(table), events: new DynamoEventStore(table) },
    sessionTimeoutSeconds: config.sessionTimeoutSeconds,
  });
}

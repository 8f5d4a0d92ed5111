import type { AwsClients } from '../adapters/aws-clients';
import { DynamoCodeStore } from '../adapters/dynamo-code-store';
import { DynamoEventStore } from '../adapters/dynamo-event-store';
import { dynamoTable } from '../adapters/dynamo-table';
import { createKvsWriter, type KeyValueStoreApi } from '../adapters/kvs-writer';
import { loadSharedSecrets } from '../adapters/secrets';
import type { EdgeSyncConfig } from '../config/edge-sync-config';
import { createEdgeSyncHandler } from '../triggers/edge-sync';

/** edge-sync's clients: the table's, and the KeyValueStore it writes (CloudFront's in AWS, one in memory in `npm start`). */
export interface EdgeSyncClients extends Pick<AwsClients, 'dynamo'> {
  keyValueStore: KeyValueStoreApi;
}

/** The edge-sync function (triggers/edge-sync.ts): the table's stream and the reconciliation schedule. */
export function compose(config: EdgeSyncConfig, clients: EdgeSyncClients): ReturnType<typeof createEdgeSyncHandler> {
  return createEdgeSyncHandler({
    writer: createKvsWriter({ store: clients.keyValueStore }),
    codes: new DynamoCodeStore(dynamoTable(clients.dynamo, config.tableName)),
    events: new DynamoEventStore(dynamoTable(clients.dynamo, config.tableName)),
    // The secrets cache of every entry point (secrets.ts): re-read once older than its maximum age.
    signingKeys: async () => (await loadSharedSecrets(config.secrets)).signingKeys,
    watermarkSecret: async () => (await loadSharedSecrets(config.secrets)).watermarkSecret,
  });
}

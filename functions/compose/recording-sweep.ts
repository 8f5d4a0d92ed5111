import type { AwsClients } from '../adapters/aws-clients';
import { DynamoEventStore } from '../adapters/dynamo-event-store';
import { dynamoTable } from '../adapters/dynamo-table';
import { s3RecordingFinalizer } from '../adapters/recording-finalizer';
import { reportScheduledShows } from '../adapters/telemetry';
import type { RecordingSweepConfig } from '../config/recording-sweep-config';
import { createRecordingSweepHandler } from '../triggers/recording-sweep';

/**
 * The recording sweep function (triggers/recording-sweep.ts) on its schedule. `npm start` reports the
 * shows scheduled nowhere (`reportShows: false`): CloudWatch's metric is AWS's.
 */
export function compose(config: RecordingSweepConfig, clients: Pick<AwsClients, 'dynamo' | 's3'>, options: { reportShows?: boolean } = {}): ReturnType<typeof createRecordingSweepHandler> {
  return createRecordingSweepHandler({
    events: new DynamoEventStore(dynamoTable(clients.dynamo, config.tableName)),
    recordings: s3RecordingFinalizer(clients.s3, config.mediaBucket),
    ...(options.reportShows === false ? {} : { reportScheduledShows }),
  });
}
